/**
 * Bitwise builtins on integers of any size: bits.and, bits.or, bits.xor,
 * bits.negate, bits.lsh, bits.rsh. Like OPA (big.Int), results are exact
 * (`bits.lsh(9223372036854775807, 1)` is 18446744073709551614) and negative
 * numbers behave as infinite two's complement.
 */
import { bigNum, isNumber, type Value } from '../value.js';
import { type BuiltinDefinition, BuiltinError, operandTypeError } from './registry.js';

function bigOperand(v: Value | undefined, pos: number): bigint {
  if (!isNumber(v)) throw operandTypeError(pos, v ?? null, 'integer');
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  throw BuiltinError.type(`operand ${pos} must be integer number but got floating-point number`);
}

function shiftOperand(v: Value | undefined, pos: number): bigint {
  if (!isNumber(v)) throw operandTypeError(pos, v ?? null, 'number');
  const n = bigOperand(v, pos);
  if (n < 0n) throw BuiltinError.type(`operand ${pos} must be an unsigned integer number but got a negative integer`);
  return n;
}

function binary(name: string, op: (a: bigint, b: bigint) => bigint): BuiltinDefinition {
  return {
    name,
    args: ['number', 'number'],
    result: 'number',
    impl: ([a, b]) => bigNum(op(bigOperand(a, 1), bigOperand(b, 2))),
  };
}

export const bitsBuiltins: BuiltinDefinition[] = [
  binary('bits.and', (a, b) => a & b),
  binary('bits.or', (a, b) => a | b),
  binary('bits.xor', (a, b) => a ^ b),
  { name: 'bits.negate', args: ['number'], result: 'number', impl: ([a]) => bigNum(~bigOperand(a, 1)) },
  {
    name: 'bits.lsh',
    args: ['number', 'number'],
    result: 'number',
    impl: ([a, s]) => bigNum(bigOperand(a, 1) << shiftOperand(s, 2)),
  },
  {
    name: 'bits.rsh',
    args: ['number', 'number'],
    result: 'number',
    impl: ([a, s]) => bigNum(bigOperand(a, 1) >> shiftOperand(s, 2)),
  },
];
