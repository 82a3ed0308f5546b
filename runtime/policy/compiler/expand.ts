/**
 * Expression rewrites that flatten nested evaluation, as OPA's compiler does:
 *
 * - {@link expandBody} (RewriteExprTerms, before safety): calls nested in
 *   terms become their own expressions with a generated output var
 *   (`x := f(g(y))` becomes `g(y, $t0); f($t0, $t1); x = $t1`), and refs whose
 *   head is a composite or a call get that head bound to a var first.
 * - {@link rewriteDynamics} (RewriteDynamicTerms, after safety): refs and
 *   comprehensions in call arguments are evaluated by a preceding `=`
 *   expression, so a call only ever sees values.
 * - {@link rewritePrint}: `print(a, b)` becomes
 *   `internal.print([{$p | $p = a}, {$p | $p = b}])` so undefined arguments
 *   print as `<undefined>` instead of failing.
 */
import type { Body, CallExpr, Expr, Loc, RefTerm, Term, With } from '../ast.js';
import { mkVar, opRef, refName } from '../ast.js';
import { byOpaName, compareTerms } from '../ast-order.js';
import type { VarGen } from './locals.js';
import { mapTerm } from './walk.js';

function eqExpr(lhs: Term, rhs: Term, loc: Loc, w: With[]): CallExpr {
  return { kind: 'call', op: opRef('eq', loc), args: [lhs, rhs], negated: false, with: w, loc, generated: true };
}

export class Expander {
  constructor(
    private readonly gen: VarGen,
    /** `future.keywords.not` / rego.v2: keep support expressions of a negation inside it. */
    private readonly notKeyword: boolean,
  ) {}

  body(body: Body): Body {
    const out: Body = [];
    for (const e of body) out.push(...this.expr(e));
    return out;
  }

  private expr(e: Expr): Expr[] {
    const result: Expr[] = [];
    const w: With[] = e.with.map((x) => {
      const [extras, value] = this.term(x.value);
      result.push(...extras);
      return { ...x, value };
    });
    const support: Expr[] = [];
    let out: Expr;
    switch (e.kind) {
      case 'term': {
        const [extras, term] = this.term(e.term);
        support.push(...extras);
        out = { ...e, term, with: w };
        break;
      }
      case 'call': {
        const args = e.args.map((a) => {
          const [extras, t] = this.term(a);
          support.push(...extras);
          return t;
        });
        out = { ...e, args, with: w };
        break;
      }
      case 'every': {
        const [extras, domain] = this.term(e.domain);
        result.push(...extras);
        out = { ...e, domain, body: this.body(e.body), with: w };
        return [...result, out];
      }
      case 'notbody':
        out = { ...e, body: this.body(e.body), with: w };
        return [...result, out];
      case 'some':
        return [...result, { ...e, with: w }];
    }
    for (const s of support) s.with = w;
    if (e.negated && this.notKeyword) {
      return [...result, { kind: 'notbody', body: [...support, { ...out, negated: false }], negated: false, with: [], loc: e.loc }];
    }
    return [...result, ...support, out];
  }

  /** Returns support expressions and the rewritten term. */
  term(t: Term): [Expr[], Term] {
    switch (t.type) {
      case 'call': {
        const support: Expr[] = [];
        const args = t.args.map((a) => {
          const [extras, x] = this.term(a);
          support.push(...extras);
          return x;
        });
        const out = mkVar(this.gen.temp(), t.loc);
        support.push({ kind: 'call', op: t.op, args: [...args, out], negated: false, with: [], loc: t.loc, generated: true });
        return [support, out];
      }
      case 'ref': {
        const support: Expr[] = [];
        const terms = t.terms.map((x) => {
          const [extras, y] = this.term(x);
          support.push(...extras);
          return y;
        });
        const head = terms[0] as Term;
        if (head.type !== 'var') {
          const v = mkVar(this.gen.temp(), head.loc);
          support.push(eqExpr(v, head, head.loc, []));
          terms[0] = v;
        }
        return [support, { ...t, terms }];
      }
      case 'array':
      case 'set': {
        const support: Expr[] = [];
        const items = t.items.map((x) => {
          const [extras, y] = this.term(x);
          support.push(...extras);
          return y;
        });
        return [support, { ...t, items }];
      }
      case 'object': {
        const support: Expr[] = [];
        const entries = t.entries.map(([k, v]) => {
          const [e1, k2] = this.term(k);
          const [e2, v2] = this.term(v);
          support.push(...e1, ...e2);
          return [k2, v2] as [Term, Term];
        });
        return [support, { ...t, entries }];
      }
      case 'arraycomp':
      case 'setcomp': {
        const [extras, term] = this.term(t.term);
        return [[], { ...t, term, body: this.body([...t.body, ...extras]) }];
      }
      case 'objectcomp': {
        const [e1, key] = this.term(t.key);
        const [e2, value] = this.term(t.value);
        return [[], { ...t, key, value, body: this.body([...t.body, ...e1, ...e2]) }];
      }
      default:
        return [[], t];
    }
  }
}

// ---------------------------------------------------------------------------

export interface DynamicsOptions {
  /** Leaves `a == b` the builtin `equal` (its operands in place): a query as OPA's query compiler types it (no RewriteEquals stage). */
  keepEqual?: boolean;
}

/**
 * Moves refs and comprehensions out of call arguments (after safety
 * reordering). The operands of `=` and `==` are left in place, only the
 * dynamic parts of their refs move, as in OPA: `not input.a == 1` holds when
 * `input.a` is undefined, while `not startswith(input.a, "x")` is undefined.
 */
export function rewriteDynamics(body: Body, gen: VarGen, options: DynamicsOptions = {}): Body {
  const out: Body = [];
  for (const e of body) {
    switch (e.kind) {
      case 'call': {
        const name = refName(e.op);
        if (name === 'eq' || (name === 'equal' && e.args.length === 2)) {
          // OPA's RewriteEquals turns a safe `a == b` into the unification `a = b` before this stage, so its operands
          // keep their refs in place: hoisting them would make `not input.a == 1` undefined, not true, without
          // `input.a`. As a unification it also evaluates a ref operand first (`foo == input.foos[foo]` binds `foo`).
          const args = e.args.map((a) => dynInTerm(a, out, e, gen, options));
          out.push({ ...e, op: name === 'eq' || options.keepEqual === true ? e.op : opRef('eq', e.op.loc), args });
        } else {
          const args = e.args.map((a) => dynOne(a, out, e, gen, options));
          out.push({ ...e, args });
        }
        break;
      }
      case 'term':
        out.push({ ...e, term: dynInTerm(e.term, out, e, gen, options) });
        break;
      case 'every':
        out.push({ ...e, body: rewriteDynamics(e.body, gen, options) });
        break;
      case 'notbody':
        out.push({ ...e, body: rewriteDynamics(e.body, gen, options) });
        break;
      default:
        out.push(e);
    }
  }
  return out;
}

function dynInTerm(t: Term, out: Body, orig: Expr, gen: VarGen, options: DynamicsOptions): Term {
  switch (t.type) {
    case 'ref':
      return { ...t, terms: t.terms.map((x, i) => (i === 0 ? x : dynOne(x, out, orig, gen, options))) };
    case 'arraycomp':
    case 'setcomp':
    case 'objectcomp':
      return { ...t, body: rewriteDynamics(t.body, gen, options) } as Term;
    default:
      return dynOne(t, out, orig, gen, options);
  }
}

function dynOne(t: Term, out: Body, orig: Expr, gen: VarGen, options: DynamicsOptions): Term {
  switch (t.type) {
    case 'ref': {
      const terms = t.terms.map((x, i) => (i === 0 ? x : dynOne(x, out, orig, gen, options)));
      const v = mkVar(gen.temp(), t.loc);
      out.push(eqExpr(v, { ...t, terms } as RefTerm, t.loc, orig.with));
      return v;
    }
    case 'array':
      return { ...t, items: t.items.map((x) => dynOne(x, out, orig, gen, options)) };
    case 'set':
      return { ...t, items: t.items.map((x) => dynOne(x, out, orig, gen, options)) };
    case 'object': {
      // In OPA's order of the keys, as OPA rewrites and evaluates them (a later equal key overwrites: see ast-order.ts).
      const entries = [...t.entries].sort(([a], [b]) => compareTerms(a, b, byOpaName));
      return { ...t, entries: entries.map(([k, v]) => [dynOne(k, out, orig, gen, options), dynOne(v, out, orig, gen, options)] as [Term, Term]) };
    }
    case 'arraycomp':
    case 'setcomp':
    case 'objectcomp': {
      const v = mkVar(gen.temp(), t.loc);
      out.push(eqExpr(v, { ...t, body: rewriteDynamics(t.body, gen, options) } as Term, t.loc, orig.with));
      return v;
    }
    default:
      return t;
  }
}

// ---------------------------------------------------------------------------

/** Rewrites `print(...)` calls (anywhere in a body) into `internal.print([...])`. */
export function rewritePrint(body: Body, gen: VarGen): Body {
  return body.map((e) => {
    switch (e.kind) {
      case 'call':
        if (refName(e.op) === 'print') {
          const items: Term[] = e.args.map((a) => {
            const v = mkVar(gen.temp(), a.loc);
            return { type: 'setcomp', term: v, body: [eqExpr(v, a, a.loc, [])], loc: a.loc };
          });
          return { ...e, op: opRef('internal.print', e.op.loc), args: [{ type: 'array', items, loc: e.loc }] };
        }
        return { ...e, args: e.args.map((a) => printInTerm(a, gen)) };
      case 'term':
        return { ...e, term: printInTerm(e.term, gen) };
      case 'every':
        return { ...e, body: rewritePrint(e.body, gen) };
      case 'notbody':
        return { ...e, body: rewritePrint(e.body, gen) };
      default:
        return e;
    }
  });
}

/** Rewrites `print` calls inside the comprehensions of a term. */
export function printInTerm(t: Term, gen: VarGen): Term {
  return mapTerm(t, (x) => {
    switch (x.type) {
      case 'arraycomp':
      case 'setcomp':
        return { ...x, term: printInTerm(x.term, gen), body: rewritePrint(x.body, gen) };
      case 'objectcomp':
        return { ...x, key: printInTerm(x.key, gen), value: printInTerm(x.value, gen), body: rewritePrint(x.body, gen) };
      default:
        return undefined;
    }
  });
}
