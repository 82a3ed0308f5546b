/**
 * Number arithmetic with OPA's behaviour where it matters: integers are exact
 * at any size (bigint past 2^53); division of integers is exact when the
 * divisor divides the dividend; `%` only accepts integers.
 *
 * Non-integers are doubles. OPA computes them with 64-bit mantissa big.Floats
 * printed at shortest precision, so `0.1 + 0.2` is `0.3` there; to match, a
 * result whose exact decimal value has at most 15 significant digits is
 * returned as that decimal (e.g. 0.3) rather than the double sum
 * (0.30000000000000004).
 */
import { BuiltinError } from './registry.js';
import { bigNum, num } from '../value.js';

export type Num = number | bigint;

export function isInt(n: Num): boolean {
  return typeof n === 'bigint' || Number.isInteger(n);
}

function big(n: Num): bigint {
  return typeof n === 'bigint' ? n : BigInt(n);
}

/** Decimal representation of a double: value = m * 10^e. */
function decimal(n: Num): { m: bigint; e: number } {
  if (typeof n === 'bigint') return { m: n, e: 0 };
  const s = String(n);
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(s);
  if (match === null) return { m: BigInt(Math.trunc(n)), e: 0 };
  const [, sign, ip = '', fp = '', ex] = match;
  const m = BigInt(sign + ip + fp);
  return { m, e: (ex === undefined ? 0 : Number(ex)) - fp.length };
}

function significantDigits(m: bigint): number {
  let s = (m < 0n ? -m : m).toString();
  s = s.replace(/0+$/, '');
  return s.length;
}

function fromDecimal(m: bigint, e: number): number {
  return Number(`${m}e${e}`);
}

/** Prefers a short exact decimal over the double result `r`. */
function snap(r: number, m: bigint, e: number): Num {
  if (!Number.isFinite(r)) throw new BuiltinError('number too large');
  if (m !== 0n && significantDigits(m) <= 15) {
    const d = fromDecimal(m, e);
    if (Number.isFinite(d)) return num(d);
  }
  return num(r);
}

function alignSum(a: Num, b: Num, sign: 1n | -1n): Num {
  const x = decimal(a);
  const y = decimal(b);
  const e = Math.min(x.e, y.e);
  if (Math.abs(x.e - y.e) > 400) return num(Number(a) + Number(sign) * Number(b));
  const m = x.m * 10n ** BigInt(x.e - e) + sign * y.m * 10n ** BigInt(y.e - e);
  return snap(Number(a) + Number(sign) * Number(b), m, e);
}

export function add(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isInteger(a) && Number.isInteger(b)) {
      const r = a + b;
      return Number.isSafeInteger(r) ? r : bigNum(BigInt(a) + BigInt(b));
    }
    return alignSum(a, b, 1n);
  }
  if (isInt(a) && isInt(b)) return bigNum(big(a) + big(b));
  return alignSum(a, b, 1n);
}

export function sub(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isInteger(a) && Number.isInteger(b)) {
      const r = a - b;
      return Number.isSafeInteger(r) ? r : bigNum(BigInt(a) - BigInt(b));
    }
    return alignSum(a, b, -1n);
  }
  if (isInt(a) && isInt(b)) return bigNum(big(a) - big(b));
  return alignSum(a, b, -1n);
}

export function mul(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isInteger(a) && Number.isInteger(b)) {
      const r = a * b;
      return Number.isSafeInteger(r) ? r : bigNum(BigInt(a) * BigInt(b));
    }
  } else if (isInt(a) && isInt(b)) return bigNum(big(a) * big(b));
  const x = decimal(a);
  const y = decimal(b);
  return snap(Number(a) * Number(b), x.m * y.m, x.e + y.e);
}

export function div(a: Num, b: Num): Num {
  if (b === 0 || b === 0n) throw new BuiltinError('divide by zero');
  if (isInt(a) && isInt(b)) {
    const x = big(a);
    const y = big(b);
    if (x % y === 0n) return bigNum(x / y);
  }
  const r = Number(a) / Number(b);
  // Exact terminating decimal quotient, when short.
  const x = decimal(a);
  const y = decimal(b);
  if (y.m !== 0n) {
    const scale = 20n;
    const num10 = x.m * 10n ** scale;
    if (num10 % y.m === 0n) return snap(r, num10 / y.m, x.e - y.e - Number(scale));
  }
  if (!Number.isFinite(r)) throw new BuiltinError('number too large');
  return num(r);
}

export function rem(a: Num, b: Num): Num {
  if (!isInt(a) || !isInt(b)) throw new BuiltinError('modulo on floating-point number');
  if (b === 0 || b === 0n) throw new BuiltinError('modulo by zero');
  if (typeof a === 'number' && typeof b === 'number') return num(a % b);
  return bigNum(big(a) % big(b));
}

export function neg(a: Num): Num {
  return typeof a === 'bigint' ? bigNum(-a) : num(-a);
}

export function abs(a: Num): Num {
  if (typeof a === 'bigint') return bigNum(a < 0n ? -a : a);
  return num(Math.abs(a));
}

/** Rounds half away from zero. */
export function round(a: Num): Num {
  if (isInt(a)) return a;
  const x = a as number;
  return num(Math.sign(x) * Math.floor(Math.abs(x) + 0.5));
}

export function ceil(a: Num): Num {
  return isInt(a) ? a : num(Math.ceil(a as number));
}

export function floor(a: Num): Num {
  return isInt(a) ? a : num(Math.floor(a as number));
}

export function compareNum(a: Num, b: Num): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function toBigInt(n: Num): bigint {
  return big(n);
}
