/**
 * Safety analysis and reordering (OPA's reorderBodyForSafety): expressions
 * are reordered so that every variable is bound (by unification, a ref
 * lookup or a call output) before an expression that needs it; variables that
 * can never be bound are reported as `rego_unsafe_var_error: var x is unsafe`.
 */
import type { Body, Expr, Loc, RefTerm, Term } from '../ast.js';
import { refName } from '../ast.js';
import { PolicyError } from '../errors.js';
import { bodyVars, exprVars, termVars, forEachSubTerm, withVars } from './walk.js';

/** Number of declared arguments of a function (builtin or user), or -1 if unknown. */
export type ArityFn = (op: RefTerm) => number;

const SKIP = { skipClosures: true };

function refHeadSafe(ref: RefTerm, safe: Set<string>): boolean {
  const head = ref.terms[0] as Term;
  if (head.type === 'var') return safe.has(head.name);
  const vs = new Set<string>();
  termVars(head, vs, SKIP);
  for (const v of vs) if (!safe.has(v)) return false;
  return true;
}

/** Vars in ref operands (not the heads of nested refs, not closures). */
function refOutputVars(ref: RefTerm, out: Set<string>): void {
  for (let i = 1; i < ref.terms.length; i++) operandVars(ref.terms[i] as Term, out);
}

function operandVars(t: Term, out: Set<string>): void {
  switch (t.type) {
    case 'var':
      out.add(t.name);
      break;
    case 'ref':
      refOutputVars(t, out);
      break;
    case 'array':
    case 'set':
      t.items.forEach((x) => operandVars(x, out));
      break;
    case 'object':
      t.entries.forEach(([k, v]) => {
        operandVars(k, out);
        operandVars(v, out);
      });
      break;
    case 'call':
      t.args.forEach((x) => operandVars(x, out));
      break;
    default:
      break;
  }
}

/** OPA's outputVarsForTerms: operand vars of refs whose head is safe. */
function termsOutputVars(terms: Term[], safe: Set<string>, out: Set<string>): void {
  const visit = (t: Term): void => {
    switch (t.type) {
      case 'ref':
        if (refHeadSafe(t, safe)) refOutputVars(t, out);
        return;
      case 'array':
      case 'set':
      case 'object':
      case 'call':
        forEachSubTerm(t, visit);
        return;
      default:
        return;
    }
  };
  terms.forEach(visit);
}

/** Vars that unification of `a` and `b` makes safe (OPA's unifier). */
function unifyVars(safe: Set<string>, a: Term, b: Term): Set<string> {
  const unified = new Set<string>();
  const unknown = new Map<string, Set<string>>();
  const isSafe = (v: string) => safe.has(v) || unified.has(v);
  const markSafe = (v: string): void => {
    if (unified.has(v)) return;
    unified.add(v);
    const deps = unknown.get(v);
    unknown.delete(v);
    if (deps) for (const d of deps) markSafe(d);
    for (const [k, ds] of [...unknown]) {
      if (ds.has(v)) {
        ds.delete(v);
        if (ds.size === 0) markSafe(k);
      }
    }
  };
  const markUnknown = (a: string, b: string): void => {
    let s = unknown.get(a);
    if (s === undefined) unknown.set(a, (s = new Set()));
    s.add(b);
  };
  const patVars = (t: Term): Set<string> => {
    const s = new Set<string>();
    const walk = (x: Term): void => {
      switch (x.type) {
        case 'var':
          s.add(x.name);
          break;
        case 'ref':
          refOutputVars(x, s);
          break;
        case 'array':
        case 'set':
          x.items.forEach(walk);
          break;
        case 'object':
          x.entries.forEach(([, v]) => walk(v));
          break;
        case 'call':
          x.args.forEach(walk);
          break;
        default:
          break;
      }
    };
    walk(t);
    return s;
  };
  const markAllSafe = (t: Term) => patVars(t).forEach(markSafe);
  const unifyAll = (v: string, t: Term): void => {
    if (isSafe(v)) markAllSafe(t);
    else {
      const unsafe = [...patVars(t)].filter((x) => !isSafe(x));
      if (unsafe.length === 0) markSafe(v);
      else for (const x of unsafe) markUnknown(v, x);
    }
  };
  const callSafe = (t: Term): boolean => {
    if (t.type !== 'call') return false;
    const vs = new Set<string>();
    t.args.forEach((x) => termVars(x, vs, SKIP));
    for (const v of vs) if (!isSafe(v)) return false;
    return true;
  };
  const isComp = (t: Term) => t.type === 'arraycomp' || t.type === 'setcomp' || t.type === 'objectcomp';
  const headSafe = (r: RefTerm) => refHeadSafe(r, new Set([...safe, ...unified]));

  const unify = (a: Term, b: Term): void => {
    switch (a.type) {
      case 'var':
        switch (b.type) {
          case 'var':
            if (isSafe(b.name)) markSafe(a.name);
            else if (isSafe(a.name)) markSafe(b.name);
            else {
              markUnknown(a.name, b.name);
              markUnknown(b.name, a.name);
            }
            return;
          case 'array':
          case 'object':
            unifyAll(a.name, b);
            return;
          case 'ref':
            if (headSafe(b)) markSafe(a.name);
            return;
          case 'call':
            if (callSafe(b)) markSafe(a.name);
            return;
          case 'set': {
            const vs = new Set<string>();
            termVars(b, vs, SKIP);
            if ([...vs].every(isSafe)) markSafe(a.name);
            return;
          }
          default:
            markSafe(a.name);
            return;
        }
      case 'ref':
        if (headSafe(a)) {
          if (b.type === 'var') markSafe(b.name);
          else if (b.type === 'array' || b.type === 'object') markAllSafe(b);
        }
        return;
      case 'call':
        if (callSafe(a)) {
          if (b.type === 'var') markSafe(b.name);
          else if (b.type === 'array' || b.type === 'object') markAllSafe(b);
        }
        return;
      case 'arraycomp':
      case 'setcomp':
      case 'objectcomp':
        if (b.type === 'var') markSafe(b.name);
        else if (b.type === 'array' || b.type === 'object') markAllSafe(b);
        return;
      case 'array':
        switch (b.type) {
          case 'var':
            unifyAll(b.name, a);
            return;
          case 'ref':
            if (headSafe(b)) markAllSafe(a);
            return;
          case 'call':
            if (callSafe(b)) markAllSafe(a);
            return;
          case 'array':
            if (a.items.length === b.items.length) a.items.forEach((x, i) => unify(x, b.items[i] as Term));
            return;
          default:
            if (isComp(b)) markAllSafe(a);
            return;
        }
      case 'object':
        switch (b.type) {
          case 'var':
            unifyAll(b.name, a);
            return;
          case 'ref':
            if (headSafe(b)) markAllSafe(a);
            return;
          case 'call':
            if (callSafe(b)) markAllSafe(a);
            return;
          case 'object':
            if (a.entries.length === b.entries.length) {
              for (const [k, v] of a.entries) {
                const match = b.entries.find(([k2]) => sameConstant(k, k2));
                if (match) unify(v, match[1]);
              }
            }
            return;
          default:
            if (isComp(b)) markAllSafe(a);
            return;
        }
      default:
        if (b.type === 'var') markSafe(b.name);
        return;
    }
  };
  unify(a, b);
  return unified;
}

function sameConstant(a: Term, b: Term): boolean {
  if (a.type !== b.type) return false;
  switch (a.type) {
    case 'string':
    case 'number':
    case 'boolean':
      return a.value === (b as typeof a).value;
    case 'null':
      return true;
    case 'var':
      return a.name === (b as typeof a).name;
    default:
      return false;
  }
}

export function isEq(e: Expr): boolean {
  return e.kind === 'call' && e.args.length === 2 && refName(e.op) === 'eq';
}

/** Vars an expression binds, given the vars already safe (OPA's outputVarsForExpr). */
export function outputVars(e: Expr, safe: Set<string>, arity: ArityFn): Set<string> {
  const out = new Set<string>();
  if (e.negated || e.kind === 'notbody') return out;
  for (const w of e.with) {
    const vs = new Set<string>();
    withVars(w, vs, SKIP);
    for (const v of vs) if (!safe.has(v)) return out;
  }
  switch (e.kind) {
    case 'term':
      termsOutputVars([e.term], safe, out);
      return out;
    case 'every':
      termsOutputVars([e.domain], safe, out);
      return out;
    case 'some':
      return out;
    case 'call': {
      if (isEq(e)) {
        termsOutputVars(e.args, safe, out);
        const s2 = new Set([...safe, ...out]);
        for (const v of unifyVars(s2, e.args[0] as Term, e.args[1] as Term)) out.add(v);
        for (const v of safe) out.delete(v);
        return out;
      }
      termsOutputVars(e.args, safe, out);
      const ar = arity(e.op);
      if (ar < 0 || ar >= e.args.length) return out;
      const inputs = new Set<string>();
      for (let i = 0; i < ar; i++) termVars(e.args[i] as Term, inputs, SKIP);
      for (const v of inputs) if (!safe.has(v) && !out.has(v)) return out;
      for (let i = ar; i < e.args.length; i++) outputTermVars(e.args[i] as Term, out);
      return out;
    }
  }
}

function outputTermVars(t: Term, out: Set<string>): void {
  switch (t.type) {
    case 'var':
      out.add(t.name);
      break;
    case 'ref':
      refOutputVars(t, out);
      break;
    case 'array':
      t.items.forEach((x) => outputTermVars(x, out));
      break;
    case 'object':
      t.entries.forEach(([, v]) => outputTermVars(v, out));
      break;
    default:
      break;
  }
}

/** All vars used inside closures (comprehensions, every, not-bodies) of an expression. */
function closureVars(e: Expr): Set<string> {
  const out = new Set<string>();
  const visit = (t: Term): void => {
    switch (t.type) {
      case 'arraycomp':
      case 'setcomp':
      case 'objectcomp':
        termVars(t, out);
        return;
      case 'ref':
        t.terms.forEach(visit);
        return;
      case 'array':
      case 'set':
      case 'object':
      case 'call':
        forEachSubTerm(t, visit);
        return;
      default:
        return;
    }
  };
  switch (e.kind) {
    case 'term':
      visit(e.term);
      break;
    case 'call':
      e.args.forEach(visit);
      break;
    case 'every':
      visit(e.domain);
      bodyVars(e.body, out);
      if (e.key) termVars(e.key, out);
      termVars(e.value, out);
      break;
    case 'notbody':
      bodyVars(e.body, out);
      break;
    default:
      break;
  }
  for (const w of e.with) visit(w.value);
  return out;
}

export interface SafetyResult {
  body: Body;
  errors: PolicyError[];
}

export class SafetyChecker {
  constructor(
    private readonly arity: ArityFn,
    private readonly isGenerated: (name: string) => boolean,
    private readonly originalName: (name: string) => string,
  ) {}

  /** Reorders `body` for safety given the vars already safe; recurses into closures. */
  check(body: Body, globals: Set<string>): SafetyResult {
    const errors: PolicyError[] = [];
    const reordered = this.reorder(body, globals, errors);
    return { body: reordered, errors };
  }

  private reorder(body: Body, globals: Set<string>, errors: PolicyError[]): Body {
    const bodyVarSet = new Set<string>();
    for (const e of body) exprVars(e, bodyVarSet, SKIP);
    const safe = new Set<string>();
    const unsafe = new Map<Expr, Set<string>>();
    for (const e of body) {
      const vs = new Set<string>();
      exprVars(e, vs, SKIP);
      for (const v of vs) {
        if (globals.has(v)) safe.add(v);
        else {
          let s = unsafe.get(e);
          if (s === undefined) unsafe.set(e, (s = new Set()));
          s.add(v);
        }
      }
    }
    const reordered: Body = [];
    const placed = new Set<Expr>();
    for (;;) {
      const n = reordered.length;
      for (const e of body) {
        if (placed.has(e)) continue;
        const ovs = outputVars(e, safe, this.arity);
        const cv = closureVars(e);
        const bodyOut = this.outputsOf(reordered, globals);
        const uv = new Set<string>();
        for (const v of cv) if (bodyVarSet.has(v) && !globals.has(v) && !bodyOut.has(v)) uv.add(v);
        if (uv.size > 0) {
          if (uv.size === ovs.size && [...uv].every((v) => ovs.has(v))) continue;
          let s = unsafe.get(e);
          if (s === undefined) unsafe.set(e, (s = new Set()));
          for (const v of uv) s.add(v);
        }
        const s = unsafe.get(e);
        if (s !== undefined) {
          for (const v of [...s]) if (ovs.has(v) || safe.has(v)) s.delete(v);
          if (s.size > 0) continue;
          unsafe.delete(e);
        }
        reordered.push(e);
        placed.add(e);
        for (const v of ovs) safe.add(v);
      }
      if (reordered.length === n) break;
    }
    // Closures: check their bodies with the vars of the preceding expressions as globals.
    const g = new Set(globals);
    const result: Body = [];
    reordered.forEach((e, i) => {
      if (i > 0) exprVars(reordered[i - 1] as Expr, g, SKIP);
      result.push(this.closures(e, g, errors));
    });
    this.report(unsafe, errors);
    return result;
  }

  private outputsOf(body: Body, globals: Set<string>): Set<string> {
    const safe = new Set(globals);
    for (const e of body) for (const v of outputVars(e, safe, this.arity)) safe.add(v);
    return safe;
  }

  private closures(e: Expr, g: Set<string>, errors: PolicyError[]): Expr {
    const term = (t: Term): Term => {
      switch (t.type) {
        case 'arraycomp':
        case 'setcomp': {
          const body = this.reorder(t.body, g, errors);
          const inner = new Set(g);
          bodyVars(body, inner, SKIP);
          this.headSafety(t.term, inner, errors);
          return { ...t, body };
        }
        case 'objectcomp': {
          const body = this.reorder(t.body, g, errors);
          const inner = new Set(g);
          bodyVars(body, inner, SKIP);
          this.headSafety(t.key, inner, errors);
          this.headSafety(t.value, inner, errors);
          return { ...t, body };
        }
        case 'ref':
          return { ...t, terms: t.terms.map(term) };
        case 'array':
          return { ...t, items: t.items.map(term) };
        case 'set':
          return { ...t, items: t.items.map(term) };
        case 'object':
          return { ...t, entries: t.entries.map(([k, v]) => [term(k), term(v)] as [Term, Term]) };
        case 'call':
          return { ...t, args: t.args.map(term) };
        default:
          return t;
      }
    };
    const w = e.with.map((x) => ({ ...x, value: term(x.value) }));
    switch (e.kind) {
      case 'term':
        return { ...e, term: term(e.term), with: w };
      case 'call':
        return { ...e, args: e.args.map(term), with: w };
      case 'every': {
        const inner = new Set(g);
        if (e.key) termVars(e.key, inner);
        termVars(e.value, inner);
        return { ...e, domain: term(e.domain), body: this.reorder(e.body, inner, errors), with: w };
      }
      case 'notbody':
        return { ...e, body: this.reorder(e.body, g, errors), with: w };
      default:
        return e;
    }
  }

  /** Vars in a comprehension head (or rule head) must be bound by the body. */
  headSafety(t: Term, safe: Set<string>, errors: PolicyError[], loc?: Loc): void {
    const vs = new Set<string>();
    termVars(t, vs, SKIP);
    for (const v of vs) {
      // A local the body declared (`some k`) and never bound is unsafe in the head, by its written name.
      const declared = this.isGenerated(v) && this.originalName(v) !== v;
      if (!safe.has(v) && (!this.isGenerated(v) || declared)) {
        const name = declared ? this.originalName(v) : v;
        // A local unsafe in the body too is reported there, once.
        if (declared && errors.some((e) => e.code === 'rego_unsafe_var_error' && e.detail === `var ${name} is unsafe`)) continue;
        errors.push(new PolicyError({ code: 'rego_unsafe_var_error', detail: `var ${name} is unsafe`, location: loc ?? varLoc(t, v) ?? t.loc }));
      }
    }
  }

  private report(unsafe: Map<Expr, Set<string>>, errors: PolicyError[]): void {
    if (unsafe.size === 0) return;
    const before = errors.length;
    const genExprs: Expr[] = [];
    // As OPA's unsafeVars.Vars: a var is reported once, at the first (by location) expression where it is unsafe.
    const at = new Map<string, Loc>();
    for (const [e, vars] of unsafe) {
      let hasGenerated = false;
      for (const v of vars) {
        if (this.isGenerated(v) && this.originalName(v) === v) {
          hasGenerated = true;
          continue;
        }
        const seen = at.get(v);
        if (seen === undefined || e.loc.row < seen.row || (e.loc.row === seen.row && e.loc.col < seen.col)) at.set(v, e.loc);
      }
      if (hasGenerated) genExprs.push(e);
    }
    for (const [v, loc] of [...at].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      errors.push(new PolicyError({ code: 'rego_unsafe_var_error', detail: `var ${this.originalName(v)} is unsafe`, location: loc }));
    }
    if (errors.length === before) {
      for (const e of genExprs) errors.push(new PolicyError({ code: 'rego_unsafe_var_error', detail: 'expression is unsafe', location: e.loc }));
    }
  }
}

function varLoc(t: Term, name: string): Loc | undefined {
  switch (t.type) {
    case 'var':
      return t.name === name ? t.loc : undefined;
    case 'ref':
      for (const x of t.terms) {
        const l = varLoc(x, name);
        if (l) return l;
      }
      return undefined;
    case 'array':
    case 'set':
      for (const x of t.items) {
        const l = varLoc(x, name);
        if (l) return l;
      }
      return undefined;
    case 'object':
      for (const [k, v] of t.entries) {
        const l = varLoc(k, name) ?? varLoc(v, name);
        if (l) return l;
      }
      return undefined;
    case 'call':
      for (const x of t.args) {
        const l = varLoc(x, name);
        if (l) return l;
      }
      return undefined;
    default:
      return undefined;
  }
}
