/**
 * Number arithmetic as OPA v1.20.2 does it. Integers (by value: 1.0 and 1e400
 * count) add, subtract and multiply exactly, and divide exactly when the
 * divisor divides; anything else goes through a binary float (Go big.Float,
 * see bigfloat.ts) at 64 bits, and the result is the shortest decimal that
 * float prints as, with that text (4.3500000999999999998, 1e-07) kept.
 * `%` only accepts integers.
 */
import { addFloat, type BigFloat, floatOfDec, floatOfInt, floatText, isIntFloat, mulFloat, quoFloat, truncFloat } from '../bigfloat.js';
import { decOf, RegoDecimal } from '../decimal.js';
import { bigNum, num, type NumberValue } from '../value.js';
import { parseNumberLiteral } from '../value-json.js';
import { BuiltinError } from './registry.js';

export type Num = NumberValue;

export function isInt(n: Num): boolean {
  return typeof n === 'bigint' || (typeof n === 'number' && Number.isInteger(n));
}

function big(n: Num): bigint {
  if (typeof n === 'bigint') return n;
  if (typeof n === 'number') return BigInt(n);
  throw new BuiltinError('expected an integer');
}

/** The float OPA's NumberToFloat makes of a number (its text read at 64 bits). */
export function toBigFloat(a: Num): BigFloat {
  // -0 is the value of negative-zero text (-0, -0.0): its sign counts in float arithmetic.
  if (a === 0) return { neg: Object.is(a, -0), mant: 0n, exp: 0, prec: 64 };
  return floatOfDec(decOf(a));
}

/** OPA's FloatToNumber: the float's shortest text, as a number keeping that text. */
export function fromBigFloat(f: BigFloat): Num {
  return parseNumberLiteral(floatText(f));
}

export function add(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b)) {
    const r = a + b;
    return Number.isSafeInteger(r) ? r + 0 : bigNum(BigInt(a) + BigInt(b));
  }
  if (isInt(a) && isInt(b)) return bigNum(big(a) + big(b));
  return fromBigFloat(addFloat(toBigFloat(a), toBigFloat(b)));
}

export function sub(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b)) {
    const r = a - b;
    return Number.isSafeInteger(r) ? r + 0 : bigNum(BigInt(a) - BigInt(b));
  }
  if (isInt(a) && isInt(b)) return bigNum(big(a) - big(b));
  return fromBigFloat(addFloat(toBigFloat(a), toBigFloat(b), true));
}

export function mul(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b)) {
    const r = a * b;
    return Number.isSafeInteger(r) ? r + 0 : bigNum(BigInt(a) * BigInt(b));
  }
  if (isInt(a) && isInt(b)) return bigNum(big(a) * big(b));
  return fromBigFloat(mulFloat(toBigFloat(a), toBigFloat(b)));
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function isZero(n: Num): boolean {
  return n === 0 || n === 0n;
}

export function div(a: Num, b: Num): Num {
  if (isZero(b)) throw new BuiltinError('divide by zero');
  // Integers divide exactly only within int64 (OPA's int fast path); a zero
  // dividend goes to the float quotient, whose sign follows the operands (0 / -1 is -0).
  if (isInt(a) && isInt(b) && !isZero(a)) {
    const x = big(a);
    const y = big(b);
    if (x >= INT64_MIN && x <= INT64_MAX && y >= INT64_MIN && y <= INT64_MAX && x % y === 0n) return bigNum(x / y);
  }
  return fromBigFloat(quoFloat(toBigFloat(a), toBigFloat(b)));
}

export function rem(a: Num, b: Num): Num {
  if (!isInt(a) || !isInt(b)) throw new BuiltinError('modulo on floating-point number');
  if (isZero(b)) throw new BuiltinError('modulo by zero');
  if (typeof a === 'number' && typeof b === 'number') return num(a % b);
  return bigNum(big(a) % big(b));
}

/**
 * sum: exact when every element is an integer, else a 64-bit float sum in
 * order (OPA adds into a fresh big.Float).
 */
export function sumAll(xs: readonly Num[]): Num {
  if (xs.every(isInt)) return xs.reduce<Num>((a, b) => add(a, b), 0);
  let acc: BigFloat = { neg: false, mant: 0n, exp: 0, prec: 0 };
  for (const x of xs) acc = addFloat(acc, toBigFloat(x));
  return fromBigFloat(acc);
}

/**
 * product: exact when every element is an integer, else a float product in
 * order that keeps the precision of OPA's accumulator, big.NewFloat(1): 53 bits.
 */
export function productAll(xs: readonly Num[]): Num {
  if (xs.every(isInt)) return xs.reduce<Num>((a, b) => mul(a, b), 1);
  let acc = floatOfDec({ m: 1n, e: 0 }, 53);
  for (const x of xs) acc = mulFloat(acc, toBigFloat(x), 53);
  return fromBigFloat(acc);
}

/** Unary minus, as OPA computes it: 0 - a. */
export function neg(a: Num): Num {
  return sub(0, a);
}

export function abs(a: Num): Num {
  if (typeof a === 'number' && Number.isInteger(a)) return num(Math.abs(a));
  const f = toBigFloat(a);
  return fromBigFloat({ ...f, neg: false });
}

const HALF = floatOfDec({ m: 5n, e: -1 }, 53);
const ONE = floatOfDec({ m: 1n, e: 0 }, 53);

/** Rounds half away from zero (in the 64-bit float, as OPA). */
export function round(a: Num): Num {
  if (typeof a === 'number' && Number.isInteger(a)) return a + 0;
  const f = toBigFloat(a);
  return bigNum(truncFloat(addFloat(f, HALF, f.neg)));
}

/**
 * OPA's ceil: the integer part, plus one unless it is negative or the number
 * was whole. An integer part of 0 is not negative, so ceil(-0.5) is 1 there.
 */
export function ceil(a: Num): Num {
  if (typeof a === 'number' && Number.isInteger(a)) return a + 0;
  const f = toBigFloat(a);
  const i = truncFloat(f);
  if (i < 0n || isIntFloat(f)) return bigNum(i);
  return fromBigFloat(addFloat(floatOfInt(i), ONE));
}

/** OPA's floor: the integer part, minus one when that is negative and the number was not whole (floor(-0.5) is 0). */
export function floor(a: Num): Num {
  if (typeof a === 'number' && Number.isInteger(a)) return a + 0;
  const f = toBigFloat(a);
  const i = truncFloat(f);
  if (i >= 0n || isIntFloat(f)) return bigNum(i);
  return fromBigFloat(addFloat(floatOfInt(i), ONE, true));
}

/**
 * Truncates toward zero as OPA's format_int does: integer text exactly, any
 * other number through the 64-bit float (format_int(1.5e300, 10) is the
 * float's integer, not 15 followed by 299 zeros).
 */
export function truncate(a: Num): bigint {
  const text = a instanceof RegoDecimal ? a.toString() : String(a);
  if (/^-?\d+$/.test(text)) return BigInt(text);
  return truncFloat(toBigFloat(a));
}

export function toBigInt(n: Num): bigint {
  return big(n);
}

/** The nearest double. */
export function toFloat(n: Num): number {
  return typeof n === 'object' ? n.toNumber() : Number(n);
}
