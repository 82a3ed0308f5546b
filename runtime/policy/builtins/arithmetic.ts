/** Arithmetic builtins: `+ - * / %` (and set difference for `-`), abs, round, ceil, floor, numbers.range. */
import { bigNum, isNumber, RegoSet, type Value } from '../value.js';
import * as n from './numeric.js';
import { asNumberValue, asSet, BuiltinError, type BuiltinDefinition, operandTypeError } from './registry.js';

function binary(name: string, op: (a: n.Num, b: n.Num) => n.Num): BuiltinDefinition {
  return {
    name,
    args: ['number', 'number'],
    result: 'number',
    impl: ([a, b]) => op(asNumberValue(a, 1), asNumberValue(b, 2)),
  };
}

function unary(name: string, op: (a: n.Num) => n.Num): BuiltinDefinition {
  return { name, args: ['number'], result: 'number', impl: ([a]) => op(asNumberValue(a, 1)) };
}

const MAX_RANGE = 10_000_000;

/** An operand of numbers.range(_step): OPA asks for an integer, so a string is "must be integer but got string". */
function rangeOperand(v: Value | undefined, pos: number): n.Num {
  if (!isNumber(v)) throw operandTypeError(pos, v ?? null, 'integer');
  return asNumberValue(v, pos);
}

function range(a: n.Num, b: n.Num, step: n.Num): Value[] {
  if (!n.isInt(a)) throw BuiltinError.type('operand 1 must be integer number but got floating-point number');
  if (!n.isInt(b)) throw BuiltinError.type('operand 2 must be integer number but got floating-point number');
  if (!n.isInt(step)) throw BuiltinError.type('operand 3 must be integer number but got floating-point number');
  const x = n.toBigInt(a);
  const y = n.toBigInt(b);
  const s = n.toBigInt(step);
  if (s <= 0n) throw new BuiltinError(`step must be a positive integer`);
  const count = (x > y ? x - y : y - x) / s + 1n;
  if (count > BigInt(MAX_RANGE)) throw new BuiltinError('range too large');
  const out: Value[] = [];
  if (x <= y) for (let i = x; i <= y; i += s) out.push(bigNum(i));
  else for (let i = x; i >= y; i -= s) out.push(bigNum(i));
  return out;
}

export const arithmeticBuiltins: BuiltinDefinition[] = [
  binary('plus', n.add),
  {
    name: 'minus',
    args: ['any', 'any'],
    result: 'any',
    impl: ([a, b]) => {
      if (isNumber(a) && isNumber(b)) return n.sub(a, b);
      if (a instanceof RegoSet && b instanceof RegoSet) {
        const out = new RegoSet();
        for (const v of a.values()) if (!b.has(v)) out.add(v);
        return out;
      }
      if (!isNumber(a) && !(a instanceof RegoSet)) throw operandTypeError(1, a as Value, 'number', 'set');
      if (isNumber(a)) throw operandTypeError(2, b as Value, 'number');
      asSet(b, 2);
      return undefined;
    },
  },
  binary('mul', n.mul),
  binary('div', n.div),
  binary('rem', n.rem),
  unary('abs', n.abs),
  unary('round', n.round),
  unary('ceil', n.ceil),
  unary('floor', n.floor),
  {
    name: 'numbers.range',
    args: ['number', 'number'],
    result: 'array',
    impl: ([a, b]) => range(rangeOperand(a, 1), rangeOperand(b, 2), 1),
  },
  {
    name: 'numbers.range_step',
    args: ['number', 'number', 'number'],
    result: 'array',
    impl: ([a, b, s]) => range(rangeOperand(a, 1), rangeOperand(b, 2), rangeOperand(s, 3)),
  },
];
