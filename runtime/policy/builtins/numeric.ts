/**
 * Number arithmetic with OPA's semantics: numbers are exact decimals.
 * Integers are exact at any size; `+ - *` on fractions are exact (0.1 + 0.2
 * is 0.3); division is exact when the quotient terminates and otherwise a
 * double (OPA keeps ~20 significant digits there); `%` only accepts integers.
 */
import { canonicalNumber, decOf, RegoDecimal } from '../decimal.js';
import { bigNum, num, type NumberValue } from '../value.js';
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

function exactSum(a: Num, b: Num, sign: 1n | -1n): Num {
  const x = decOf(a);
  const y = decOf(b);
  const e = Math.min(x.e, y.e);
  return canonicalNumber(x.m * 10n ** BigInt(x.e - e) + sign * y.m * 10n ** BigInt(y.e - e), e);
}

export function add(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b)) {
    const r = a + b;
    return Number.isSafeInteger(r) ? r : bigNum(BigInt(a) + BigInt(b));
  }
  if (isInt(a) && isInt(b)) return bigNum(big(a) + big(b));
  return exactSum(a, b, 1n);
}

export function sub(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b)) {
    const r = a - b;
    return Number.isSafeInteger(r) ? r : bigNum(BigInt(a) - BigInt(b));
  }
  if (isInt(a) && isInt(b)) return bigNum(big(a) - big(b));
  return exactSum(a, b, -1n);
}

export function mul(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b)) {
    const r = a * b;
    return Number.isSafeInteger(r) ? r : bigNum(BigInt(a) * BigInt(b));
  }
  if (isInt(a) && isInt(b)) return bigNum(big(a) * big(b));
  const x = decOf(a);
  const y = decOf(b);
  return canonicalNumber(x.m * y.m, x.e + y.e);
}

function isZero(n: Num): boolean {
  return n === 0 || n === 0n;
}

/** Significant digits kept for quotients that do not terminate, when a double cannot hold the operands. */
const QUOTIENT_DIGITS = 34n;

export function div(a: Num, b: Num): Num {
  if (isZero(b)) throw new BuiltinError('divide by zero');
  if (isInt(a) && isInt(b)) {
    const x = big(a);
    const y = big(b);
    if (x % y === 0n) return bigNum(x / y);
  }
  const x = decOf(a);
  const y = decOf(b);
  // Terminating quotient: exact.
  const scale = 40n;
  const scaled = x.m * 10n ** scale;
  if (scaled % y.m === 0n) return canonicalNumber(scaled / y.m, x.e - y.e - Number(scale));
  const fa = typeof a === 'object' ? a.toNumber() : Number(a);
  const fb = typeof b === 'object' ? b.toNumber() : Number(b);
  const r = fa / fb;
  if (Number.isFinite(r) && r !== 0 && !(a instanceof RegoDecimal) && !(b instanceof RegoDecimal)) return num(r);
  // Out of double range: keep QUOTIENT_DIGITS significant digits.
  const shift = QUOTIENT_DIGITS + BigInt((y.m < 0n ? -y.m : y.m).toString().length);
  return canonicalNumber((x.m * 10n ** shift) / y.m, x.e - y.e - Number(shift));
}

export function rem(a: Num, b: Num): Num {
  if (!isInt(a) || !isInt(b)) throw new BuiltinError('modulo on floating-point number');
  if (isZero(b)) throw new BuiltinError('modulo by zero');
  if (typeof a === 'number' && typeof b === 'number') return num(a % b);
  return bigNum(big(a) % big(b));
}

export function neg(a: Num): Num {
  if (typeof a === 'bigint') return bigNum(-a);
  if (typeof a === 'number') return num(-a);
  return canonicalNumber(-a.m, a.e);
}

export function abs(a: Num): Num {
  if (typeof a === 'bigint') return bigNum(a < 0n ? -a : a);
  if (typeof a === 'number') return num(Math.abs(a));
  return canonicalNumber(a.m < 0n ? -a.m : a.m, a.e);
}

/** Integer part of a decimal, truncated toward zero. */
function trunc(a: Num): bigint {
  if (typeof a === 'bigint') return a;
  if (typeof a === 'number') return BigInt(Math.trunc(a));
  return a.m / 10n ** BigInt(-a.e);
}

function isNegative(a: Num): boolean {
  return typeof a === 'object' ? a.m < 0n : a < 0;
}

/** Rounds half away from zero. */
export function round(a: Num): Num {
  if (isInt(a)) return a;
  const half = isNegative(a) ? sub(a, 0.5) : add(a, 0.5);
  return bigNum(trunc(half));
}

export function ceil(a: Num): Num {
  if (isInt(a)) return a;
  const t = trunc(a);
  return bigNum(isNegative(a) ? t : t + 1n);
}

export function floor(a: Num): Num {
  if (isInt(a)) return a;
  const t = trunc(a);
  return bigNum(isNegative(a) ? t - 1n : t);
}

/** Truncates toward zero (format_int). */
export function truncate(a: Num): bigint {
  return trunc(a);
}

export function toBigInt(n: Num): bigint {
  return big(n);
}

/** The nearest double. */
export function toFloat(n: Num): number {
  return typeof n === 'object' ? n.toNumber() : Number(n);
}
