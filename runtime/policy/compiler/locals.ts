/**
 * Local variable rewriting (OPA's RewriteLocalVars stage). Vars declared with
 * `:=`, `some` or as `every` key/value get unique names (`x$3`), so scoping is
 * explicit; each `_` becomes a fresh var. Plain vars (bound by `=`) keep their
 * name and are shared by a body and the closures nested in it.
 *
 * Errors mirror OPA: `var x assigned above`, `var x referenced above`,
 * `var x declared above`, `arg x redeclared`, `cannot assign to ...`.
 */
import type { Body, Expr, Loc, RefTerm, Rule, Term, VarTerm } from '../ast.js';
import { mkRef, opRef } from '../ast.js';
import { PolicyError } from '../errors.js';
import { typeName } from '../parser-terms.js';
import { isOp } from './resolve.js';
import { bodyVars, termVars } from './walk.js';

type Occurrence = 'arg' | 'assigned' | 'declared' | 'seen';

interface Entry {
  occ: Occurrence;
  gen: string;
}

/** Generates unique var names; shared by all passes of one compilation. */
export class VarGen {
  private n = 0;
  /** Original names of generated vars (for result bindings and messages). */
  readonly original = new Map<string, string>();

  next(base: string): string {
    const name = `${base}$${this.n++}`;
    this.original.set(name, base);
    return name;
  }

  temp(): string {
    return `$t${this.n++}`;
  }

  /** The temps that stand for a `_` written in the source: OPA prints such a var as `_`. */
  readonly wildcards = new Set<string>();

  /** OPA's names (`__local1__`) for the temps that stand for a local OPA's compiler generates (the key of `some x in xs`), for error texts. */
  readonly opaNames = new Map<string, string>();

  wildcard(): string {
    const name = this.temp();
    this.wildcards.add(name);
    return name;
  }

  isGenerated(name: string): boolean {
    return name.includes('$');
  }
}

class Scopes {
  private readonly stack: Array<Map<string, Entry>> = [new Map()];

  push(): void {
    this.stack.push(new Map());
  }

  pop(): void {
    this.stack.pop();
  }

  /** The generated name of a declared var visible here. */
  declared(name: string): string | undefined {
    for (let i = this.stack.length - 1; i >= 0; i--) {
      const e = (this.stack[i] as Map<string, Entry>).get(name);
      if (e !== undefined && e.occ !== 'seen') return e.gen;
    }
    return undefined;
  }

  occurrence(name: string): Occurrence | undefined {
    return (this.stack[this.stack.length - 1] as Map<string, Entry>).get(name)?.occ;
  }

  insert(name: string, gen: string, occ: Occurrence): void {
    (this.stack[this.stack.length - 1] as Map<string, Entry>).set(name, { occ, gen });
  }

  seen(name: string): void {
    const top = this.stack[this.stack.length - 1] as Map<string, Entry>;
    if (!top.has(name)) top.set(name, { occ: 'seen', gen: name });
  }

  copy(): Scopes {
    const s = new Scopes();
    s.stack.length = 0;
    for (const m of this.stack) s.stack.push(new Map(m));
    return s;
  }
}

export class LocalRewriter {
  readonly errors: PolicyError[] = [];
  /**
   * The count of locals OPA's rewriteLocalVars stage would have generated so far (`__local<N>__`): one per argument
   * var of a function, per declared var, per generated key of `some x in xs` and `every x in xs`, in its order.
   */
  private opaLocals = 0;

  constructor(private readonly gen: VarGen) {}

  private err(detail: string, loc: Loc): void {
    this.errors.push(new PolicyError({ code: 'rego_compile_error', detail, location: loc }));
  }

  rewriteRule(rule: Rule): void {
    const argScope = new Scopes();
    for (const a of rule.head.args ?? []) this.declareArgs(a, argScope);
    const argVars = new Set<string>();
    let wildcardArgs = 0;
    for (const a of rule.head.args ?? []) termVars(a, argVars);
    for (const a of rule.head.args ?? []) wildcardArgs += countWildcards(a);
    this.opaLocals += [...argVars].filter((v) => v !== '_').length + wildcardArgs;
    const args = rule.head.args?.map((a) => this.term(a, argScope, false));
    for (let branch: Rule | undefined = rule; branch !== undefined; branch = branch.else) {
      const scopes = argScope.copy();
      if (args !== undefined) branch.head.args = args;
      const h = branch.head;
      const headVars = new Set<string>();
      for (const t of [...h.ref.slice(1), ...(h.key ? [h.key] : []), ...(h.value ? [h.value] : [])]) termVars(t, headVars);
      branch.body = this.body(branch.body, scopes, headVars);
      h.ref = [h.ref[0] as Term, ...h.ref.slice(1).map((t) => this.term(t, scopes, false))];
      if (h.key !== undefined) h.key = this.term(h.key, scopes, false);
      if (h.value !== undefined) h.value = this.term(h.value, scopes, false);
    }
  }

  rewriteQuery(body: Body): Body {
    return this.body(body, new Scopes());
  }

  private declareArgs(t: Term, scopes: Scopes): void {
    switch (t.type) {
      case 'var':
        if (t.name !== '_') scopes.insert(t.name, t.name, 'arg');
        break;
      case 'array':
      case 'set':
        t.items.forEach((x) => this.declareArgs(x, scopes));
        break;
      case 'object':
        t.entries.forEach(([, v]) => this.declareArgs(v, scopes));
        break;
      default:
        break;
    }
  }

  /** `used`: the names the rule's head reads (a var declared in the body and read only there is used). */
  body(body: Body, scopes: Scopes, used: ReadonlySet<string> = new Set()): Body {
    const out: Body = [];
    const errors = this.errors.length;
    // `_` is never read: its declaration is always unused (its generated name is left empty).
    const declared: Array<{ name: string; loc: Loc; gen?: string }> = [];
    for (const e of body) {
      if (e.kind === 'some' && e.inDomain === undefined) {
        for (const v of e.vars) {
          if (v.name !== '_' && scopes.occurrence(v.name) !== undefined) continue;
          declared.push({ name: v.name, loc: e.loc, ...(v.name === '_' ? { gen: '' } : {}) });
        }
      }
      const r = this.expr(e, scopes);
      if (r !== undefined) out.push(r);
    }
    // OPA's checkUnusedDeclaredVars: a var declared by `some x` that the body (its closures included) never reads is
    // refused, at the `some`, unless this body already has a declaration error.
    if (declared.length > 0 && this.errors.length === errors) {
      const read = new Set<string>();
      bodyVars(out, read);
      for (const d of declared) {
        const gen = d.gen ?? scopes.declared(d.name);
        if (gen !== undefined && !read.has(gen) && !used.has(d.name)) this.err(`declared var ${d.name} unused`, d.loc);
      }
    }
    return out;
  }

  private expr(e: Expr, scopes: Scopes): Expr | undefined {
    switch (e.kind) {
      case 'some': {
        if (e.inDomain === undefined) {
          for (const v of e.vars) this.declare(v, scopes, 'declared');
          return undefined;
        }
        const domain = this.term(e.inDomain, scopes, true);
        const w = this.withs(e, scopes, true);
        // OPA generates the key before it declares the value's vars.
        const generated = e.inKey === undefined ? { type: 'var' as const, name: this.generatedLocal(), loc: e.loc } : undefined;
        const value = this.declarePattern(e.inValue as Term, scopes);
        const key = generated ?? this.declarePattern(e.inKey as Term, scopes);
        const ref = mkRef(domain.type === 'ref' ? [...domain.terms, key] : [domain, key], e.loc);
        return { kind: 'call', op: opRef('eq', e.loc), args: [value, ref], negated: false, with: w, loc: e.loc, generated: true };
      }
      case 'every': {
        const domain = this.term(e.domain, scopes, true);
        const w = this.withs(e, scopes, true);
        scopes.push();
        if (e.key === undefined) this.opaLocals++;
        const key = e.key === undefined ? undefined : this.declarePattern(e.key, scopes);
        const value = this.declarePattern(e.value, scopes);
        const body = this.body(e.body, scopes);
        scopes.pop();
        return key === undefined ? { ...e, domain, value, body, with: w } : { ...e, domain, key, value, body, with: w };
      }
      case 'notbody': {
        const w = this.withs(e, scopes, true);
        scopes.push();
        const body = this.body(e.body, scopes);
        scopes.pop();
        return { ...e, body, with: w };
      }
      case 'call': {
        if (isOp(e.op, 'assign') && e.args.length === 2) {
          if (e.negated) {
            this.err('cannot assign vars inside negated expression', e.loc);
            return e;
          }
          const rhs = this.term(e.args[1] as Term, scopes, true);
          // OPA rewrites an assignment's operands and `with` values, not its `with` targets.
          const w = this.withs(e, scopes, false);
          const lhs = this.assignTarget(e.args[0] as Term, scopes);
          return { ...e, op: opRef('eq', e.op.loc), args: [lhs, rhs], with: w };
        }
        const args = e.args.map((a) => this.term(a, scopes, true));
        return { ...e, args, with: this.withs(e, scopes, true) };
      }
      case 'term':
        return { ...e, term: this.term(e.term, scopes, true), with: this.withs(e, scopes, true) };
    }
  }

  /** Rewrites `with` values and, unless `targets` is false, the vars inside ref targets (`input[x]`). */
  private withs(e: Expr, scopes: Scopes, targets: boolean): Expr['with'] {
    return e.with.map((w) => {
      const target = targets && w.target.type === 'ref' ? this.targetRef(w.target, scopes) : w.target;
      return { ...w, target, value: this.term(w.value, scopes, true) };
    });
  }

  /** A `with` target's vars are rewritten as the body's, but `_` stays a plain var (OPA: `var _ is unsafe`). */
  private targetRef(t: RefTerm, scopes: Scopes): RefTerm {
    return { ...t, terms: t.terms.map((x, i) => (i === 0 || (x.type === 'var' && x.name === '_') ? x : this.term(x, scopes, true))) };
  }

  private declare(v: VarTerm, scopes: Scopes, occ: Occurrence): string {
    if (v.name === '_') return this.gen.wildcard();
    const prev = scopes.occurrence(v.name);
    if (prev !== undefined) {
      const what =
        prev === 'seen'
          ? `var ${v.name} referenced above`
          : prev === 'assigned'
            ? `var ${v.name} assigned above`
            : prev === 'declared'
              ? `var ${v.name} declared above`
              : `arg ${v.name} redeclared`;
      this.err(what, v.loc);
      return scopes.declared(v.name) ?? v.name;
    }
    const gen = this.gen.next(v.name);
    this.opaLocals++;
    scopes.insert(v.name, gen, occ);
    return gen;
  }

  /** A temp for a local OPA generates, known by OPA's name for it in error texts. */
  private generatedLocal(): string {
    const name = this.gen.temp();
    this.gen.opaNames.set(name, `__local${this.opaLocals++}__`);
    return name;
  }

  /** Declares the vars of a `some ... in` / `every` pattern; other parts are rewritten normally. */
  private declarePattern(t: Term, scopes: Scopes): Term {
    switch (t.type) {
      case 'var':
        return { ...t, name: this.declare(t, scopes, 'declared') };
      case 'array':
        return { ...t, items: t.items.map((x) => this.declarePattern(x, scopes)) };
      case 'object':
        return { ...t, entries: t.entries.map(([k, v]) => [this.term(k, scopes, true), this.declarePattern(v, scopes)] as [Term, Term]) };
      default:
        return this.term(t, scopes, true);
    }
  }

  private assignTarget(t: Term, scopes: Scopes): Term {
    switch (t.type) {
      case 'var':
        return { ...t, name: this.declare(t, scopes, 'assigned') };
      case 'array':
        return { ...t, items: t.items.map((x) => this.assignTarget(x, scopes)) };
      case 'object':
        return { ...t, entries: t.entries.map(([k, v]) => [this.term(k, scopes, true), this.assignTarget(v, scopes)] as [Term, Term]) };
      case 'ref':
        if (t.terms.length === 1 && t.terms[0]?.type === 'var') {
          this.err(`cannot assign to ${t.terms[0].name}`, t.loc);
          return t;
        }
        this.err('cannot assign to ref', t.loc);
        return t;
      default:
        this.err(`cannot assign to ${typeName(t)}`, t.loc);
        return t;
    }
  }

  /** Rewrites vars in a term. `markSeen` records plain vars as seen in the current scope. */
  term(t: Term, scopes: Scopes, markSeen: boolean): Term {
    switch (t.type) {
      case 'var': {
        if (t.name === '_') return { ...t, name: this.gen.wildcard() };
        const d = scopes.declared(t.name);
        if (d !== undefined) return d === t.name ? t : { ...t, name: d };
        if (markSeen) scopes.seen(t.name);
        return t;
      }
      case 'ref':
        return {
          ...t,
          terms: t.terms.map((x, i) => (i === 0 && x.type === 'var' && (x.name === 'data' || x.name === 'input') ? x : this.term(x, scopes, markSeen))),
        };
      case 'array':
        return { ...t, items: t.items.map((x) => this.term(x, scopes, markSeen)) };
      case 'set':
        return { ...t, items: t.items.map((x) => this.term(x, scopes, markSeen)) };
      case 'object':
        return { ...t, entries: t.entries.map(([k, v]) => [this.term(k, scopes, markSeen), this.term(v, scopes, markSeen)] as [Term, Term]) };
      case 'call':
        return { ...t, args: t.args.map((x) => this.term(x, scopes, markSeen)) };
      case 'arraycomp':
      case 'setcomp': {
        scopes.push();
        const body = this.body(t.body, scopes);
        const term = this.term(t.term, scopes, true);
        scopes.pop();
        return { ...t, term, body };
      }
      case 'objectcomp': {
        scopes.push();
        const body = this.body(t.body, scopes);
        const key = this.term(t.key, scopes, true);
        const value = this.term(t.value, scopes, true);
        scopes.pop();
        return { ...t, key, value, body };
      }
      default:
        return t;
    }
  }
}

/** The `_` written in a function's argument (each is its own var to OPA). */
function countWildcards(t: Term): number {
  switch (t.type) {
    case 'var':
      return t.name === '_' ? 1 : 0;
    case 'array':
    case 'set':
      return t.items.reduce((n, x) => n + countWildcards(x), 0);
    case 'object':
      return t.entries.reduce((n, [, v]) => n + countWildcards(v), 0);
    default:
      return 0;
  }
}
