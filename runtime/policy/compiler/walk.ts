/**
 * Traversals over the AST: variable collection (with OPA's safety-check
 * options) and copying/mapping of terms and bodies.
 */
import type { Body, Expr, Term, VarTerm, With } from '../ast.js';

export interface VarOptions {
  /** Do not descend into comprehension bodies or `every` bodies. */
  skipClosures?: boolean;
}

/** Adds the vars of `t` to `out`. Call operators are not vars. */
export function termVars(t: Term, out: Set<string>, opts: VarOptions = {}): void {
  switch (t.type) {
    case 'var':
      out.add(t.name);
      return;
    case 'ref':
      for (const x of t.terms) termVars(x, out, opts);
      return;
    case 'array':
    case 'set':
      for (const x of t.items) termVars(x, out, opts);
      return;
    case 'object':
      for (const [k, v] of t.entries) {
        termVars(k, out, opts);
        termVars(v, out, opts);
      }
      return;
    case 'call':
      for (const x of t.args) termVars(x, out, opts);
      return;
    case 'arraycomp':
    case 'setcomp':
      if (opts.skipClosures) return;
      termVars(t.term, out, opts);
      bodyVars(t.body, out, opts);
      return;
    case 'objectcomp':
      if (opts.skipClosures) return;
      termVars(t.key, out, opts);
      termVars(t.value, out, opts);
      bodyVars(t.body, out, opts);
      return;
    default:
      return;
  }
}

export function exprVars(e: Expr, out: Set<string>, opts: VarOptions = {}): void {
  switch (e.kind) {
    case 'term':
      termVars(e.term, out, opts);
      break;
    case 'call':
      for (const a of e.args) termVars(a, out, opts);
      break;
    case 'some':
      for (const v of e.vars) out.add(v.name);
      if (e.inKey) termVars(e.inKey, out, opts);
      if (e.inValue) termVars(e.inValue, out, opts);
      if (e.inDomain) termVars(e.inDomain, out, opts);
      break;
    case 'every':
      termVars(e.domain, out, opts);
      if (!opts.skipClosures) {
        if (e.key) termVars(e.key, out, opts);
        termVars(e.value, out, opts);
        bodyVars(e.body, out, opts);
      }
      break;
    case 'notbody':
      if (!opts.skipClosures) bodyVars(e.body, out, opts);
      break;
  }
  for (const w of e.with) withVars(w, out, opts);
}

/**
 * Adds the vars of a `with` modifier: those of its value (the head of a ref value names a function, not a var) and
 * those inside a ref target (`x` in `input[x]`), which OPA's safety check requires to be bound like any input.
 */
export function withVars(w: With, out: Set<string>, opts: VarOptions = {}): void {
  if (w.value.type === 'ref') w.value.terms.slice(1).forEach((x) => termVars(x, out, opts));
  else termVars(w.value, out, opts);
  if (w.target.type === 'ref') w.target.terms.slice(1).forEach((x) => termVars(x, out, opts));
}

export function bodyVars(b: Body, out: Set<string>, opts: VarOptions = {}): void {
  for (const e of b) exprVars(e, out, opts);
}

export function varsOf(t: Term, opts: VarOptions = {}): Set<string> {
  const out = new Set<string>();
  termVars(t, out, opts);
  return out;
}

/** Deep-maps a term: `f` is tried first on every node; returning undefined descends. */
export function mapTerm(t: Term, f: (t: Term) => Term | undefined): Term {
  const r = f(t);
  if (r !== undefined) return r;
  switch (t.type) {
    case 'ref':
      return { ...t, terms: t.terms.map((x) => mapTerm(x, f)) };
    case 'array':
      return { ...t, items: t.items.map((x) => mapTerm(x, f)) };
    case 'set':
      return { ...t, items: t.items.map((x) => mapTerm(x, f)) };
    case 'object':
      return { ...t, entries: t.entries.map(([k, v]) => [mapTerm(k, f), mapTerm(v, f)] as [Term, Term]) };
    case 'call':
      return { ...t, args: t.args.map((x) => mapTerm(x, f)) };
    default:
      return t;
  }
}

/** True when the term contains no vars, refs, calls or comprehensions. */
export function isConstantTerm(t: Term): boolean {
  switch (t.type) {
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
      return true;
    case 'array':
    case 'set':
      return t.items.every(isConstantTerm);
    case 'object':
      return t.entries.every(([k, v]) => isConstantTerm(k) && isConstantTerm(v));
    default:
      return false;
  }
}

/** Vars that appear directly in a pattern (not inside refs, calls or closures). */
export function patternVars(t: Term, out: Set<string> = new Set()): Set<string> {
  switch (t.type) {
    case 'var':
      out.add(t.name);
      break;
    case 'array':
    case 'set':
      for (const x of t.items) patternVars(x, out);
      break;
    case 'object':
      for (const [, v] of t.entries) patternVars(v, out);
      break;
    default:
      break;
  }
  return out;
}

export function isVar(t: Term): t is VarTerm {
  return t.type === 'var';
}

/**
 * Calls `visit` on the direct sub-terms of an array, set, object (keys and
 * values) or call (arguments); other terms have none here.
 */
export function forEachSubTerm(t: Term, visit: (t: Term) => void): void {
  switch (t.type) {
    case 'array':
    case 'set':
      t.items.forEach(visit);
      return;
    case 'object':
      for (const [k, v] of t.entries) {
        visit(k);
        visit(v);
      }
      return;
    case 'call':
      t.args.forEach(visit);
      return;
    default:
      return;
  }
}
