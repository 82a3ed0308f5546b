/**
 * Unit builtins: units.parse (SI and binary suffixes, exact rational result
 * that may be fractional, e.g. "500m" is 0.5) and units.parse_bytes (byte
 * counts, truncated to an integer).
 *
 * OPA computes units.parse with big.Rat and units.parse_bytes with 64-bit
 * big.Float; both are reproduced with bigint arithmetic so results match
 * bit for bit (e.g. "1.1KiB" is 1126, not 1126.4 rounded).
 */
import { canonicalNumber } from '../decimal.js';
import { bigNum, type Value } from '../value.js';
import { asString, BuiltinError, type BuiltinDefinition } from './registry.js';

const KI = 1n << 10n;
const MI = 1n << 20n;
const GI = 1n << 30n;
const TI = 1n << 40n;
const PI = 1n << 50n;
const EI = 1n << 60n;
const K = 1000n;
const M = K * K;
const G = M * K;
const T = G * K;
const P = T * K;
const E = P * K;

const BYTE_UNITS: Readonly<Record<string, bigint>> = {
  '': 1n,
  kb: K,
  k: K,
  kib: KI,
  ki: KI,
  mb: M,
  m: M,
  mib: MI,
  mi: MI,
  gb: G,
  g: G,
  gib: GI,
  gi: GI,
  tb: T,
  t: T,
  tib: TI,
  ti: TI,
  pb: P,
  p: P,
  pib: PI,
  pi: PI,
  eb: E,
  e: E,
  eib: EI,
  ei: EI,
};

/** units.parse suffixes (after lower-casing all but the first letter); "m" is milli. */
const SI_UNITS: Readonly<Record<string, bigint>> = {
  '': 1n,
  k: K,
  K: K,
  ki: KI,
  Ki: KI,
  M: M,
  mi: MI,
  Mi: MI,
  g: G,
  G: G,
  gi: GI,
  Gi: GI,
  t: T,
  T: T,
  ti: TI,
  Ti: TI,
  p: P,
  P: P,
  pi: PI,
  Pi: PI,
  e: E,
  E: E,
  ei: EI,
  Ei: EI,
};

/** Digits allowed in a scientific-notation exponent. */
const MAX_EXPONENT_DIGITS = 6;

class ExponentTooLarge extends Error {}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/**
 * Splits "10.5e3Mi" into the number ("10.5e3") and the unit ("Mi"). An 'e'
 * belongs to the number only when a digit or sign follows it.
 */
function splitNumberAndUnit(s: string): [string, string] {
  let end = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (!isDigit(c) && c !== '.' && c !== 'e' && c !== 'E' && c !== '+' && c !== '-') {
      end = i;
      break;
    }
    if (c === 'e' || c === 'E') {
      const next = s[i + 1];
      if (next === undefined || (!isDigit(next) && next !== '+' && next !== '-')) {
        end = i;
        break;
      }
      if (next === '+' || next === '-') i++;
      let j = i + 1;
      while (isDigit(s[j])) j++;
      if (j - (i + 1) > MAX_EXPONENT_DIGITS) throw new ExponentTooLarge();
    }
  }
  if (end === -1) return [s, ''];
  return [s.slice(0, end), s.slice(end)];
}

/** A decimal literal as sign * digits * 10^exp (big.Float / big.Rat syntax for these characters), or null. */
interface Decimal {
  neg: boolean;
  digits: bigint;
  exp: number;
}

function parseDecimal(s: string): Decimal | null {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (m === null) return null;
  const [, sign = '', int = '', frac = '', exp] = m;
  if (int === '' && frac === '') return null;
  return { neg: sign === '-', digits: BigInt(int + frac || '0'), exp: (exp === undefined ? 0 : Number(exp)) - frac.length };
}

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

/** num/den (both positive) rounded to `prec` significant bits, ties to even: value = m * 2^e. */
function roundToBits(num: bigint, den: bigint, prec: number): { m: bigint; e: number } {
  const shift = prec + 2 - (bitLength(num) - bitLength(den));
  const n = shift >= 0 ? num << BigInt(shift) : num;
  const d = shift >= 0 ? den : den << BigInt(-shift);
  let q = n / d;
  const sticky = n % d !== 0n;
  const extra = bitLength(q) - prec;
  let e = -shift;
  if (extra > 0) {
    const dropped = q & ((1n << BigInt(extra)) - 1n);
    const half = 1n << BigInt(extra - 1);
    q >>= BigInt(extra);
    e += extra;
    if (dropped > half || (dropped === half && (sticky || (q & 1n) === 1n))) {
      q += 1n;
      if (bitLength(q) > prec) {
        q >>= 1n;
        e += 1;
      }
    }
  }
  return { m: q, e };
}

/** m * 2^e truncated toward zero. */
function truncBinary(m: bigint, e: number): bigint {
  return e >= 0 ? m << BigInt(e) : m >> BigInt(-e);
}

/**
 * units.parse_bytes arithmetic: Go's big.Float with 64-bit mantissas parses
 * the literal (the digits times 5^exp, where 5^exp itself is rounded to 128
 * bits), multiplies by the unit, and truncates to an integer.
 */
function bytesValue(d: Decimal, unit: bigint): bigint {
  if (d.digits === 0n) return 0n;
  // Values below 10^-20 times a unit of at most 2^60 truncate to 0.
  if (d.digits.toString().length + d.exp < -20) return 0n;
  let x: { m: bigint; e: number };
  if (d.exp === 0) {
    x = roundToBits(d.digits, 1n, 64);
  } else {
    const p5 = 5n ** BigInt(Math.abs(d.exp));
    const p = bitLength(p5) > 128 ? roundToBits(p5, 1n, 128) : { m: p5, e: 0 };
    // 10^exp = 5^exp * 2^exp: the power of two only moves the exponent.
    if (d.exp > 0) {
      const r = roundToBits(d.digits * p.m, 1n, 64);
      x = { m: r.m, e: r.e + p.e + d.exp };
    } else {
      const r = roundToBits(d.digits, p.m, 64);
      x = { m: r.m, e: r.e - p.e + d.exp };
    }
  }
  const product = roundToBits(x.m * unit, 1n, 64);
  const total = truncBinary(product.m, product.e + x.e);
  return d.neg ? -total : total;
}

/** The exact rational value of a finite double: [numerator, denominator]. */
function doubleToRational(x: number): [bigint, bigint] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const exponent = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & ((1n << 52n) - 1n);
  let e: number;
  if (exponent === 0) e = -1074;
  else {
    mantissa |= 1n << 52n;
    e = exponent - 1075;
  }
  return e >= 0 ? [mantissa << BigInt(e), 1n] : [mantissa, 1n << BigInt(-e)];
}

const [MILLI_NUM, MILLI_DEN] = doubleToRational(0.001);

/** Rounds num/den (den > 0) to 10 decimal places, halves away from zero (big.Rat's FloatString(10)). */
function roundTo10Places(num: bigint, den: bigint): bigint {
  const neg = num < 0n;
  const a = neg ? -num : num;
  const scaled = a * 10_000_000_000n;
  let q = scaled / den;
  if (2n * (scaled % den) >= den) q += 1n;
  return neg ? -q : q;
}

function unitsValue(d: Decimal, unit: string): Value {
  if (d.digits === 0n) return 0;
  let num = d.digits;
  let den = 1n;
  if (d.exp !== 0) {
    // big.Rat refuses exponents beyond a million.
    if (Math.abs(d.exp) > 1_000_000) throw new BuiltinError('units.parse: could not parse amount to a number');
    const p = 10n ** BigInt(Math.abs(d.exp));
    if (d.exp > 0) num *= p;
    else den = p;
  }
  if (d.neg) num = -num;
  if (unit === 'm') {
    num *= MILLI_NUM;
    den *= MILLI_DEN;
  } else {
    num *= SI_UNITS[unit] as bigint;
  }
  if (num % den === 0n) return bigNum(num / den);
  try {
    return canonicalNumber(roundTo10Places(num, den), -10);
  } catch {
    throw new BuiltinError('units.parse: number too large');
  }
}

export const unitsBuiltins: BuiltinDefinition[] = [
  {
    name: 'units.parse',
    args: ['string'],
    result: 'number',
    impl: ([x]) => {
      // OPA's messages carry the builtin name themselves, so it appears twice once prefixed.
      const s = asString(x, 1).replaceAll('"', '');
      if (s.includes(' ')) throw new BuiltinError('units.parse: spaces not allowed in resource strings');
      let num: string;
      let unit: string;
      try {
        [num, unit] = splitNumberAndUnit(s);
      } catch (e) {
        if (e instanceof ExponentTooLarge) throw new BuiltinError('units.parse: exponent too large');
        throw e;
      }
      if (num === '') throw new BuiltinError('units.parse: no amount provided');
      // Only the letters after the first are lower-cased, so "m" (milli) and "M" (mega) differ.
      if (unit.length > 1) unit = unit[0] + unit.slice(1).toLowerCase();
      if (unit !== 'm' && SI_UNITS[unit] === undefined) throw new BuiltinError(`units.parse: unit ${unit} not recognized`);
      const d = parseDecimal(num);
      if (d === null) throw new BuiltinError('units.parse: could not parse amount to a number');
      return unitsValue(d, unit);
    },
  },
  {
    name: 'units.parse_bytes',
    args: ['string'],
    result: 'number',
    impl: ([x]) => {
      const s = asString(x, 1).toLowerCase().replaceAll('"', '');
      if (s.includes(' ')) throw new BuiltinError('units.parse_bytes: spaces not allowed in resource strings');
      let num: string;
      let unit: string;
      try {
        [num, unit] = splitNumberAndUnit(s);
      } catch (e) {
        if (e instanceof ExponentTooLarge) throw new BuiltinError('units.parse_bytes: exponent too large');
        throw e;
      }
      if (num === '') throw new BuiltinError('units.parse_bytes: no byte amount provided');
      const multiplier = BYTE_UNITS[unit];
      if (multiplier === undefined) throw new BuiltinError(`units.parse_bytes: byte unit ${unit} not recognized`);
      const d = parseDecimal(num);
      if (d === null) throw new BuiltinError('units.parse_bytes: could not parse byte amount to a number');
      return bigNum(bytesValue(d, multiplier));
    },
  },
];
