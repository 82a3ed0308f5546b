/**
 * The checks OPA runs on a partial evaluation's residual before turning it
 * into a filter: every expression must be a comparison (or `in`,
 * `startswith`, ...) between a column (`input.<table>.<column>`) and a known
 * scalar, in a form the chosen targets express. Each problem is an error
 * with OPA's code (`pe_fragment_error`), message and place.
 */
import { type Expr, refName, refToString, type Term, termToString } from '../ast.js';
import { PartialError, type Queries, SUPPORT_NEEDED } from '../partial/partial-eval.js';
import { type Constraint, refuseBuiltin, refuseFeature } from './constraints.js';

const CODE = 'pe_fragment_error';
const COMPARISONS = new Set(['eq', 'neq', 'lt', 'lte', 'gt', 'gte']);
const UNKNOWN_FIRST = new Set(['startswith', 'endswith', 'contains', 'internal.member_2']);
/** Builtin names OPA shows in a friendlier spelling. */
const SPELLING: Record<string, string> = { 'internal.member_2': 'in' };

export function exprText(e: Expr): string {
  const neg = e.negated ? 'not ' : '';
  if (e.kind === 'term') return neg + termToString(e.term);
  if (e.kind === 'call') {
    const op = refName(e.op) ?? refToString(e.op);
    const infix: Record<string, string> = { eq: '=', equal: '==', neq: '!=', lt: '<', lte: '<=', gt: '>', gte: '>=' };
    const sym = infix[op];
    if (sym !== undefined && e.args.length === 2) return `${neg}${termToString(e.args[0] as Term)} ${sym} ${termToString(e.args[1] as Term)}`;
    return `${neg}${op}(${e.args.map(termToString).join(', ')})`;
  }
  return neg + e.kind;
}

function isScalar(t: Term): boolean {
  return t.type === 'string' || t.type === 'number' || t.type === 'boolean' || t.type === 'null';
}

/** Every problem of every residual expression, in order; empty when the residual is translatable. */
export function checkResidual(queries: Queries, constraints: readonly Constraint[], shorts: ReadonlySet<string>): PartialError[] {
  const errs: PartialError[] = [];
  for (const q of queries) {
    for (const e of q) {
      const a = checkStatement(e, constraints);
      if (a !== undefined) errs.push(a);
      const b = checkBuiltin(e, constraints, shorts);
      if (b !== undefined) errs.push(b);
    }
  }
  return errs;
}

function checkStatement(e: Expr, cs: readonly Constraint[]): PartialError | undefined {
  const support = SUPPORT_NEEDED.get(e);
  if (support !== undefined) return new PartialError(CODE, support, e.loc);
  if (e.negated) {
    if (e.kind !== 'call') return new PartialError(CODE, '"not" not permitted', e.loc);
    const refused = refuseFeature(cs, 'not');
    return refused === undefined ? undefined : new PartialError(CODE, `"not" not permitted: ${refused}`, e.loc);
  }
  if (e.kind === 'call') return undefined;
  if (e.kind === 'every') return new PartialError(CODE, '"every" not permitted', e.loc);
  if (e.with.length > 0) return new PartialError(CODE, '"with" not permitted', e.loc);
  if (e.kind === 'term' && e.term.type === 'ref' && e.term.terms[0]?.type === 'var' && e.term.terms[0].name === 'data') {
    const text = exprText(e);
    return new PartialError(CODE, `invalid data reference "${text}"`, e.loc, `has rule "${text}" an \`else\`?`);
  }
  const text = exprText(e);
  return new PartialError(CODE, `invalid statement "${text}"`, e.loc, `try \`${text} != false\``);
}

function checkBuiltin(e: Expr, cs: readonly Constraint[], shorts: ReadonlySet<string>): PartialError | undefined {
  if (e.with.length > 0 || e.kind !== 'call') return undefined;
  const op = refName(e.op) ?? refToString(e.op);
  const loc = e.op.loc ?? e.loc;
  const twoRefsOK = COMPARISONS.has(op);
  const unknownFirst = UNKNOWN_FIRST.has(op);
  if (!twoRefsOK && !unknownFirst) {
    if (op === 'internal.member_3') return new PartialError(CODE, 'invalid use of "... in ..."', loc);
    if (op.startsWith('data.')) return new PartialError(CODE, `invalid data reference "${exprText(e)}"`, e.loc, `has function "${op}(...)" an \`else\`?`);
    return new PartialError(CODE, `invalid builtin \`${op}\``, loc);
  }
  const refused = refuseBuiltin(cs, op);
  if (refused !== undefined) return new PartialError(CODE, `invalid builtin \`${SPELLING[op] ?? op}\`: ${refused}`, loc);
  for (let i = 0; i < 2; i++) {
    const t = e.args[i];
    if (t === undefined) return new PartialError(CODE, `${op}: missing operand`, loc);
    if (t.type === 'call') return new PartialError(CODE, `${op}: nested call operand: ${termToString(t)}`, loc);
    if (t.type === 'ref' && !columnRef(t, shorts)) return new PartialError(CODE, `${op}: invalid ref operand: ${termToString(t)}`, loc);
  }
  const [a, b] = e.args as [Term, Term];
  const refs = [a, b].filter((t) => t.type === 'ref').length;
  if (refs === 2) {
    const r = refuseFeature(cs, 'field-ref');
    if (r !== undefined) return new PartialError(CODE, `reference to field: ${r}`, loc);
  }
  if (unknownFirst) return a.type === 'ref' ? undefined : new PartialError(CODE, `rhs of ${op} must be known`, loc);
  if (isScalar(a) || isScalar(b)) return undefined;
  if (op === 'eq' && refs === 1) {
    for (const t of [a, b]) {
      if (t.type !== 'var' && t.type !== 'ref') return new PartialError(CODE, 'both rhs and lhs non-scalar/non-ground', loc);
      const r = refuseFeature(cs, 'existence-ref');
      if (r !== undefined) return new PartialError(CODE, `existence of field: ${r}`, loc);
    }
    return undefined;
  }
  if (!twoRefsOK || refs !== 2) return new PartialError(CODE, 'both rhs and lhs non-scalar/non-ground', loc);
  return undefined;
}

/** `input.<table>.<column>`, or `input.<short>` when a mapping gives the short name a table. */
function columnRef(t: Term & { type: 'ref' }, shorts: ReadonlySet<string>): boolean {
  const head = t.terms[0];
  if (head?.type !== 'var' || head.name !== 'input') return false;
  if (t.terms.length === 3) return true;
  const second = t.terms[1];
  return t.terms.length === 2 && second?.type === 'string' && shorts.has(second.value);
}
