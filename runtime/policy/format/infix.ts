/**
 * Builtins written as infix operators, as `opa fmt` prints them: a call to
 * `plus(a, b)` is written `a + b`, and `internal.member_2(x, xs)` `x in xs`.
 */
import { type RefTerm, refName, type Term } from '../ast.js';

const INFIX: Record<string, string> = {
  eq: '=',
  assign: ':=',
  equal: '==',
  neq: '!=',
  lt: '<',
  lte: '<=',
  gt: '>',
  gte: '>=',
  plus: '+',
  minus: '-',
  mul: '*',
  div: '/',
  rem: '%',
  and: '&',
  or: '|',
  'internal.member_2': 'in',
  'internal.member_3': 'in',
};

/** The infix operator of a builtin call, or undefined for a plain call. */
export function infixOf(op: RefTerm): string | undefined {
  const name = refName(op);
  return name === undefined ? undefined : INFIX[name];
}

/** True for a set union call (`a | b`), which needs parens where `|` would start a comprehension. */
export function isUnionCall(t: Term): boolean {
  return t.type === 'call' && refName(t.op) === 'or';
}
