/**
 * Binary floating point with a chosen mantissa precision, rounded to nearest
 * even: the part of Go's `math/big.Float` that OPA's arithmetic goes through
 * for numbers that are not integers (`NumberToFloat` parses the number text
 * at 64 bits, `FloatToNumber` prints the shortest decimal that reads back to
 * the same float at its precision). That is why OPA answers
 * `sum([1e-7, 4.35])` with 4.3500000999999999998 and `1 / 3` with
 * 0.33333333333333333334; these functions give the same digits.
 */
import type { Dec } from './decimal.js';

/** `(-1)^neg * mant * 2^exp`, with `mant < 2^prec`. */
export interface BigFloat {
  neg: boolean;
  mant: bigint;
  exp: number;
  prec: number;
}

/** The precision `new(big.Float).SetString` gives a number. */
export const DEFAULT_PREC = 64;

function bitLen(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

/** Rounds `mant * 2^exp` (plus a sticky bit for discarded non-zero bits) to `prec` bits, half to even. */
function rounded(neg: boolean, mant: bigint, exp: number, prec: number, sticky = false): BigFloat {
  const len = bitLen(mant);
  if (len <= prec) return { neg, mant, exp, prec };
  const shift = len - prec;
  let q = mant >> BigInt(shift);
  const rest = mant & ((1n << BigInt(shift)) - 1n);
  const half = 1n << BigInt(shift - 1);
  if (rest > half || (rest === half && (sticky || (q & 1n) === 1n))) q += 1n;
  let e = exp + shift;
  if (bitLen(q) > prec) {
    q >>= 1n;
    e += 1;
  }
  return { neg, mant: q, exp: e, prec };
}

/** The float nearest to the decimal `m * 10^e` at `prec` bits (big.Float SetString). */
export function floatOfDec(d: Dec, prec = DEFAULT_PREC): BigFloat {
  const neg = d.m < 0n;
  const m = neg ? -d.m : d.m;
  if (m === 0n) return { neg: false, mant: 0n, exp: 0, prec };
  if (d.e >= 0) return rounded(neg, m * 10n ** BigInt(d.e), 0, prec);
  const den = 10n ** BigInt(-d.e);
  return quotient(neg, m, den, 0, prec);
}

/** `num / den * 2^exp` rounded to `prec` bits. */
function quotient(neg: boolean, num: bigint, den: bigint, exp: number, prec: number): BigFloat {
  // Enough quotient bits for prec + a rounding bit; the remainder is the sticky bit.
  const k = Math.max(0, prec + 2 - (bitLen(num) - bitLen(den)));
  const scaled = num << BigInt(k);
  const q = scaled / den;
  const sticky = scaled % den !== 0n;
  return rounded(neg, sticky ? (q << 1n) | 1n : q << 1n, exp - k - 1, prec);
}

/** The float holding integer `i` exactly (big.Float SetInt: precision max(64, bits)). */
export function floatOfInt(i: bigint): BigFloat {
  const neg = i < 0n;
  const m = neg ? -i : i;
  return { neg, mant: m, exp: 0, prec: Math.max(DEFAULT_PREC, bitLen(m)) };
}

function signed(f: BigFloat): bigint {
  return f.neg ? -f.mant : f.mant;
}

/** x + y (or x - y), rounded to the larger precision. */
export function addFloat(x: BigFloat, y: BigFloat, subtract = false): BigFloat {
  const prec = Math.max(x.prec, y.prec);
  const e = Math.min(x.exp, y.exp);
  const a = signed(x) << BigInt(x.exp - e);
  let b = signed(y) << BigInt(y.exp - e);
  if (subtract) b = -b;
  const s = a + b;
  return s === 0n ? { neg: false, mant: 0n, exp: 0, prec } : rounded(s < 0n, s < 0n ? -s : s, e, prec);
}

/** x * y, rounded to `prec` (Go: the receiver's precision, or the larger one when that is 0). */
export function mulFloat(x: BigFloat, y: BigFloat, prec = Math.max(x.prec, y.prec)): BigFloat {
  if (x.mant === 0n || y.mant === 0n) return { neg: x.neg !== y.neg, mant: 0n, exp: 0, prec };
  return rounded(x.neg !== y.neg, x.mant * y.mant, x.exp + y.exp, prec);
}

/** x / y; y must not be zero. */
export function quoFloat(x: BigFloat, y: BigFloat): BigFloat {
  const prec = Math.max(x.prec, y.prec);
  if (x.mant === 0n) return { neg: x.neg !== y.neg, mant: 0n, exp: 0, prec };
  return quotient(x.neg !== y.neg, x.mant, y.mant, x.exp - y.exp, prec);
}

/** Truncates toward zero (big.Float Int). */
export function truncFloat(x: BigFloat): bigint {
  const v = x.exp >= 0 ? x.mant << BigInt(x.exp) : x.mant >> BigInt(-x.exp);
  return x.neg ? -v : v;
}

export function isIntFloat(x: BigFloat): boolean {
  return x.exp >= 0 || (x.mant & ((1n << BigInt(-x.exp)) - 1n)) === 0n;
}

// ---------------------------------------------------------------------------
// Shortest decimal (Go's roundShortest) and FloatToNumber's text

/** Decimal digits (no trailing zeros) with `0.digits * 10^exp` = value. */
interface Digits {
  d: string;
  exp: number;
}

function digitsOf(m: bigint, shift: number): Digits {
  let s: string;
  let exp: number;
  if (shift >= 0) {
    s = (m << BigInt(shift)).toString();
    exp = s.length;
  } else {
    s = (m * 5n ** BigInt(-shift)).toString();
    exp = s.length + shift;
  }
  const t = s.replace(/0+$/, '');
  return { d: t, exp: t === '' ? 0 : exp };
}

function roundUp(x: Digits, n: number): Digits {
  if (n >= x.d.length) return x;
  let i = n - 1;
  while (i >= 0 && x.d[i] === '9') i--;
  if (i < 0) return { d: '1', exp: x.exp + 1 };
  return { d: x.d.slice(0, i) + String.fromCharCode(x.d.charCodeAt(i) + 1), exp: x.exp };
}

function roundDown(x: Digits, n: number): Digits {
  if (n >= x.d.length) return x;
  const d = x.d.slice(0, n).replace(/0+$/, '');
  return { d, exp: d === '' ? 0 : x.exp };
}

function roundHalfEven(x: Digits, n: number): Digits {
  if (n >= x.d.length) return x;
  const c = x.d[n];
  const up = c === '5' && n + 1 === x.d.length ? n > 0 && (x.d.charCodeAt(n - 1) - 48) % 2 === 1 : c !== undefined && c >= '5';
  return up ? roundUp(x, n) : roundDown(x, n);
}

/** The fewest digits that read back to `x` at its precision. */
function shortest(x: BigFloat): Digits {
  const d = digitsOf(x.mant, x.exp);
  if (d.d === '') return d;
  // mant with prec+1 bits, its last bit being half an ulp.
  const s = bitLen(x.mant) - (x.prec + 1);
  const mant = s < 0 ? x.mant << BigInt(-s) : x.mant >> BigInt(s);
  const exp = x.exp + s;
  const lower = digitsOf(mant - 1n, exp);
  const upper = digitsOf(mant + 1n, exp);
  const inclusive = (mant & 2n) === 0n;
  const at = (y: Digits, i: number): string => (i < y.d.length ? (y.d[i] as string) : '0');
  for (let i = 0; i < d.d.length; i++) {
    const m = d.d[i] as string;
    // Digit by digit at the same index, decimal points not aligned: as Go's math/big does.
    const l = at(lower, i);
    const u = at(upper, i);
    const okdown = l !== m || (inclusive && i + 1 === lower.d.length);
    const okup = m !== u && (inclusive || m.charCodeAt(0) + 1 < u.charCodeAt(0) || i + 1 < upper.d.length);
    if (okdown && okup) return roundHalfEven(d, i + 1);
    if (okdown) return roundDown(d, i + 1);
    if (okup) return roundUp(d, i + 1);
  }
  return d;
}

/**
 * OPA's FloatToNumber text: `Text('f', -1)` for integers, else `Text('g', -1)`
 * (exponent form below 1e-4 and from 1e6: `1e-07`, `1.2345675e+06`).
 */
export function floatText(x: BigFloat): string {
  const sign = x.neg ? '-' : '';
  const d = shortest(x);
  if (d.d === '') return sign + '0';
  if (isIntFloat(x)) return sign + d.d + '0'.repeat(Math.max(0, d.exp - d.d.length));
  return gText(sign, d);
}

/** `Text('g', -1)`: the shortest digits, in exponent form when the exponent is below -4 or from 6. */
function gText(sign: string, d: Digits): string {
  const e = d.exp - 1;
  if (e < -4 || e >= 6) {
    const mant = d.d.length > 1 ? d.d[0] + '.' + d.d.slice(1) : d.d;
    const ae = Math.abs(e);
    return `${sign}${mant}e${e < 0 ? '-' : '+'}${ae < 10 ? '0' : ''}${ae}`;
  }
  if (d.exp <= 0) return `${sign}0.${'0'.repeat(-d.exp)}${d.d}`;
  return d.exp >= d.d.length ? sign + d.d + '0'.repeat(d.exp - d.d.length) : `${sign}${d.d.slice(0, d.exp)}.${d.d.slice(d.exp)}`;
}

/**
 * `new(big.Float).SetRat(r)` printed by `%v` (`Text('g', -1)`), for the
 * decimal `m * 10^e`: SetRat's precision is the larger of the reduced
 * numerator's and denominator's bit lengths, and at least 64. How
 * gojsonschema prints a schema's bound in an error (`1e+06`, `2.5`).
 */
export function ratFloatText(d: Dec): string {
  const neg = d.m < 0n;
  const m = neg ? -d.m : d.m;
  if (m === 0n) return '0';
  let num = d.e >= 0 ? m * 10n ** BigInt(d.e) : m;
  let den = d.e >= 0 ? 1n : 10n ** BigInt(-d.e);
  const g = gcd(num, den);
  num /= g;
  den /= g;
  const x = floatOfDec(d, Math.max(bitLen(num), bitLen(den), DEFAULT_PREC));
  const digits = shortest(x);
  return digits.d === '' ? '0' : gText(neg ? '-' : '', digits);
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}
