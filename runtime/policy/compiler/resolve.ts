/**
 * Reference resolution (OPA's ResolveRefs stage): vars naming a rule of the
 * package become `data.<pkg>.<rule>` refs, import aliases become their path,
 * unless the var is a function argument or declared locally (`:=`, `some`).
 */
import type { Body, Expr, Module, RefTerm, Rule, Term, With } from '../ast.js';
import { mkRef, refName } from '../ast.js';
import { builtinResultIsAny } from './types.js';
import { patternVars } from './walk.js';

type Globals = Map<string, Term[]>;

/** Package path segments of a module (`package a.b` gives `["a", "b"]`). */
export function packageSegments(m: Module): string[] {
  return m.package.path.terms.slice(1).map((t) => (t.type === 'string' ? t.value : ''));
}

/** Vars declared in a body by `:=` or `some` (not descending into comprehensions). */
export function declaredVars(body: Body, out: Set<string> = new Set()): Set<string> {
  for (const e of body) {
    if (e.kind === 'call' && e.args.length === 2 && isOp(e.op, 'assign')) patternVarsDeep(e.args[0] as Term, out);
    else if (e.kind === 'some') {
      for (const v of e.vars) out.add(v.name);
      if (e.inKey) patternVarsDeep(e.inKey, out);
      if (e.inValue) patternVarsDeep(e.inValue, out);
    } else if (e.kind === 'every') {
      declaredVars(e.body, out);
    } else if (e.kind === 'notbody') {
      declaredVars(e.body, out);
    }
  }
  return out;
}

function patternVarsDeep(t: Term, out: Set<string>): void {
  patternVars(t, out);
}

export function isOp(op: RefTerm, name: string): boolean {
  const h = op.terms[0];
  return op.terms.length === 1 && h !== undefined && h.type === 'var' && h.name === name;
}

/** Resolves all rules of `modules` in place. */
export function resolveModules(modules: Module[]): void {
  const rulesByPackage = new Map<string, Set<string>>();
  for (const m of modules) {
    const key = packageSegments(m).join('\u0000');
    let names = rulesByPackage.get(key);
    if (names === undefined) rulesByPackage.set(key, (names = new Set()));
    for (const r of m.rules) {
      const h = r.head.ref[0];
      if (h !== undefined && h.type === 'var') names.add(h.name);
    }
  }
  const valueRules = zeroArgCallableRules(modules);
  for (const m of modules) {
    const globals: Globals = new Map();
    const pkgTerms = m.package.path.terms;
    for (const name of rulesByPackage.get(packageSegments(m).join('\u0000')) ?? []) {
      globals.set(name, [...pkgTerms, { type: 'string', value: name, loc: m.package.loc }]);
    }
    for (const imp of m.imports) {
      const head = imp.path.terms[0];
      if (head === undefined || head.type !== 'var') continue;
      if (head.name === 'future' || head.name === 'rego') continue;
      const last = imp.path.terms[imp.path.terms.length - 1] as Term;
      const name = imp.alias ?? (last.type === 'var' ? last.name : last.type === 'string' ? last.value : '');
      if (name !== '') globals.set(name, imp.path.terms);
    }
    for (const r of m.rules) resolveRule(r, globals, valueRules);
  }
}

/**
 * Paths of the rules OPA lets a zero-argument call read: `f()` evaluates the
 * single-value rule `f` when OPA's type checker cannot tell the rule is no
 * function: when the rule's type is `any`. Approximated here as a value
 * written as a ref (`f := input.x`) or a var not declared from a literal,
 * collection, comprehension or covered builtin with a typed result
 * (`f = out if out := upper(s)` is a string); a literal value (`f := 1`,
 * `f := {"k": input.a}`) has a type, and `f()` is then "undefined function"
 * in OPA, as here.
 */
function zeroArgCallableRules(modules: Module[]): Set<string> {
  const functions = new Set<string>();
  const untyped = new Set<string>();
  for (const m of modules) {
    const pkg = packageSegments(m);
    for (const r of m.rules) {
      if (!r.head.ref.slice(1).every((t) => t.type === 'string')) continue;
      const key = pathKey([...pkg, ...r.head.ref.map((t) => (t.type === 'var' ? t.name : t.type === 'string' ? t.value : ''))]);
      if (r.head.args !== undefined) functions.add(key);
      else if (r.head.key === undefined) {
        for (let b: Rule | undefined = r; b !== undefined; b = b.else) {
          if (b.head.value?.type === 'ref' || (b.head.value?.type === 'var' && !assignedTyped(b, b.head.value.name, shadowed(m)))) untyped.add(key);
        }
      }
    }
  }
  for (const f of functions) untyped.delete(f);
  return untyped;
}

/** Names a module's rules and imports give, which a call such as `upper(x)` would then mean instead of the builtin. */
function shadowed(m: Module): Set<string> {
  const names = new Set<string>();
  for (const r of m.rules) if (r.head.ref[0]?.type === 'var') names.add(r.head.ref[0].name);
  for (const i of m.imports) {
    const last = i.path.terms[i.path.terms.length - 1];
    names.add(i.alias ?? (last?.type === 'string' ? last.value : last?.type === 'var' ? last.name : ''));
  }
  return names;
}

/**
 * Whether the rule value `name` has a type OPA's checker certainly knows (not `any`): it is declared by
 * `name := <literal, collection or comprehension>` or `name := <builtin whose result type is not any>(…)`.
 */
function assignedTyped(branch: Rule, name: string, shadow: Set<string>): boolean {
  for (const e of branch.body) {
    if (e.kind !== 'call' || !isOp(e.op, 'assign') || e.args.length !== 2) continue;
    const [lhs, rhs] = e.args as [Term, Term];
    if (lhs.type !== 'var' || lhs.name !== name) continue;
    switch (rhs.type) {
      case 'null':
      case 'boolean':
      case 'number':
      case 'string':
      case 'array':
      case 'set':
      case 'object':
      case 'arraycomp':
      case 'setcomp':
      case 'objectcomp':
        return true;
      case 'call': {
        const op = refName(rhs.op);
        const head = rhs.op.terms[0];
        return op !== undefined && head?.type === 'var' && !shadow.has(head.name) && builtinResultIsAny(op) === false;
      }
      default:
        return false;
    }
  }
  return false;
}

function pathKey(segments: string[]): string {
  return segments.join('\u0000');
}

/** The path key of a resolved `data.a.b` ref whose operands are strings. */
function dataRefKey(ref: RefTerm): string | undefined {
  const [head, ...rest] = ref.terms;
  if (head?.type !== 'var' || head.name !== 'data' || !rest.every((t) => t.type === 'string')) return undefined;
  return pathKey(rest.map((t) => (t.type === 'string' ? t.value : '')));
}

/** Resolves a query body against an optional set of globals (none for plain queries). */
export function resolveQuery(body: Body, globals: Globals = new Map()): Body {
  const r = new Resolver(globals);
  const ignore = declaredVars(body);
  return r.body(body, [ignore]);
}

function resolveRule(rule: Rule, globals: Globals, valueRules: Set<string>): void {
  const r = new Resolver(globals, valueRules);
  const argVars = new Set<string>();
  for (const a of rule.head.args ?? []) collectAllVars(a, argVars);
  for (let branch: Rule | undefined = rule; branch !== undefined; branch = branch.else) {
    const ignore = [argVars, declaredVars(branch.body)];
    const h = branch.head;
    h.ref = [h.ref[0] as Term, ...h.ref.slice(1).map((t) => r.term(t, ignore))];
    if (h.key !== undefined) h.key = r.term(h.key, ignore);
    if (h.value !== undefined) h.value = r.term(h.value, ignore);
    branch.body = r.body(branch.body, ignore);
  }
}

function collectAllVars(t: Term, out: Set<string>): void {
  switch (t.type) {
    case 'var':
      out.add(t.name);
      break;
    case 'array':
    case 'set':
      t.items.forEach((x) => collectAllVars(x, out));
      break;
    case 'object':
      t.entries.forEach(([k, v]) => {
        collectAllVars(k, out);
        collectAllVars(v, out);
      });
      break;
    case 'ref':
      t.terms.forEach((x) => collectAllVars(x, out));
      break;
    default:
      break;
  }
}

class Resolver {
  constructor(
    private readonly globals: Globals,
    /** Rules a zero-argument call reads (see zeroArgCallableRules). */
    private readonly valueRules: Set<string> = new Set(),
  ) {}

  /** `f()` naming a rule of `valueRules`: the rule's ref, read as OPA reads it. */
  private ruleRead(op: RefTerm, nargs: number): RefTerm | undefined {
    if (nargs !== 0 || this.valueRules.size === 0) return undefined;
    const key = dataRefKey(op);
    return key !== undefined && this.valueRules.has(key) ? { ...op, zeroArgCall: true } : undefined;
  }

  private ignored(name: string, ignore: Set<string>[]): boolean {
    for (const s of ignore) if (s.has(name)) return true;
    return false;
  }

  body(b: Body, ignore: Set<string>[]): Body {
    return b.map((e) => this.expr(e, ignore));
  }

  expr(e: Expr, ignore: Set<string>[]): Expr {
    const w: With[] = e.with.map((x) => ({ ...x, target: this.term(x.target, ignore), value: this.term(x.value, ignore) }));
    switch (e.kind) {
      case 'term':
        return { ...e, term: this.term(e.term, ignore), with: w };
      case 'call': {
        const op = this.op(e.op, ignore);
        const read = this.ruleRead(op, e.args.length);
        if (read !== undefined) return { kind: 'term', term: read, negated: e.negated, with: w, loc: e.loc };
        return { ...e, op, args: e.args.map((a) => this.term(a, ignore)), with: w };
      }
      case 'some': {
        const out = { ...e, with: w };
        if (e.inDomain) out.inDomain = this.term(e.inDomain, ignore);
        if (e.inKey) out.inKey = this.term(e.inKey, ignore);
        if (e.inValue) out.inValue = this.term(e.inValue, ignore);
        return out;
      }
      case 'every': {
        const locals = new Set<string>();
        if (e.key) collectAllVars(e.key, locals);
        collectAllVars(e.value, locals);
        const inner = [...ignore, locals, declaredVars(e.body)];
        return { ...e, domain: this.term(e.domain, ignore), body: this.body(e.body, inner), with: w };
      }
      case 'notbody':
        return { ...e, body: this.body(e.body, [...ignore, declaredVars(e.body)]), with: w };
    }
  }

  private op(op: RefTerm, ignore: Set<string>[]): RefTerm {
    const t = this.term(op, ignore);
    return t.type === 'ref' ? t : mkRef([t], t.loc);
  }

  term(t: Term, ignore: Set<string>[]): Term {
    switch (t.type) {
      case 'var': {
        if (this.ignored(t.name, ignore)) return t;
        const g = this.globals.get(t.name);
        if (g === undefined) return t;
        return mkRef(
          g.map((x, i) => (i === 0 ? { ...x, loc: t.loc } : x)),
          t.loc,
        );
      }
      case 'ref': {
        const head = t.terms[0] as Term;
        const rest = t.terms.slice(1).map((x) => this.term(x, ignore));
        if (head.type === 'var') {
          if (head.name === 'data' || head.name === 'input') return mkRef([head, ...rest], t.loc);
          if (!this.ignored(head.name, ignore)) {
            const g = this.globals.get(head.name);
            if (g !== undefined) return mkRef([...g.map((x, i) => (i === 0 ? { ...x, loc: head.loc } : x)), ...rest], t.loc);
          }
          return mkRef([head, ...rest], t.loc);
        }
        return mkRef([this.term(head, ignore), ...rest], t.loc);
      }
      case 'array':
        return { ...t, items: t.items.map((x) => this.term(x, ignore)) };
      case 'set':
        return { ...t, items: t.items.map((x) => this.term(x, ignore)) };
      case 'object':
        return { ...t, entries: t.entries.map(([k, v]) => [this.term(k, ignore), this.term(v, ignore)] as [Term, Term]) };
      case 'call': {
        const op = this.op(t.op, ignore);
        return this.ruleRead(op, t.args.length) ?? { ...t, op, args: t.args.map((x) => this.term(x, ignore)) };
      }
      case 'arraycomp':
      case 'setcomp': {
        const inner = [...ignore, declaredVars(t.body)];
        return { ...t, term: this.term(t.term, inner), body: this.body(t.body, inner) };
      }
      case 'objectcomp': {
        const inner = [...ignore, declaredVars(t.body)];
        return { ...t, key: this.term(t.key, inner), value: this.term(t.value, inner), body: this.body(t.body, inner) };
      }
      default:
        return t;
    }
  }
}
