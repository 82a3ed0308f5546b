/**
 * Exact decimal numbers for the values a double cannot hold: fractions with
 * more significant digits than a double keeps (0.1234567890123456789) or
 * beyond its range (1e-400). Each number has one representation (see
 * {@link canonicalNumber}): an integer is a JS number when safe, else a
 * bigint; a fraction is a double when the double's shortest decimal text is
 * exactly that fraction, else a {@link RegoDecimal}. A double thus stands for
 * the decimal it prints as (0.1 is one tenth), as OPA's decimal numbers do.
 */

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);

/** An exact non-integer decimal `m * 10^e` (e < 0, m not a multiple of 10). */
export class RegoDecimal {
  constructor(
    readonly m: bigint,
    readonly e: number,
  ) {}

  toString(): string {
    return decimalText(this.m, this.e);
  }

  /** Nearest double (may round, underflow to 0 or overflow to Infinity). */
  toNumber(): number {
    return Number(`${this.m}e${this.e}`);
  }
}

export interface Dec {
  m: bigint;
  e: number;
}

export function normalizeDec(m: bigint, e: number): Dec {
  if (m === 0n) return { m: 0n, e: 0 };
  if (m % 10n !== 0n) return { m, e };
  if (m % 100_000_000n === 0n) {
    // A long run of zeros (1e100000 as an integer): counted in the decimal text, one conversion,
    // rather than one division of the whole number per zero (quadratic: seconds for 100,000 zeros).
    const text = (m < 0n ? -m : m).toString();
    let end = text.length;
    while (text.charCodeAt(end - 1) === 48) end--;
    const zeros = text.length - end;
    return { m: m / 10n ** BigInt(zeros), e: e + zeros };
  }
  while (m % 10n === 0n) {
    m /= 10n;
    e++;
  }
  return { m, e };
}

const DOUBLE_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/;

/** The exact decimal a double denotes (its shortest round-trip text). */
export function decOfDouble(d: number): Dec {
  const match = DOUBLE_TEXT.exec(String(d));
  if (match === null) throw new RangeError(`not a finite number: ${d}`);
  const [, sign, ip = '', fp = '', ex] = match;
  return normalizeDec(BigInt(sign + ip + fp), (ex === undefined ? 0 : Number(ex)) - fp.length);
}

export function decOf(n: number | bigint | RegoDecimal): Dec {
  if (typeof n === 'bigint') return normalizeDec(n, 0);
  if (typeof n === 'number') return Number.isInteger(n) ? normalizeDec(BigInt(n), 0) : decOfDouble(n);
  return { m: n.m, e: n.e };
}

/** The canonical number for `m * 10^e`. */
export function canonicalNumber(m0: bigint, e0: number): number | bigint | RegoDecimal {
  const { m, e } = normalizeDec(m0, e0);
  if (m === 0n) return 0;
  if (e >= 0) {
    if (e > 100_000) throw new RangeError('number too large');
    const i = m * 10n ** BigInt(e);
    return i <= MAX_SAFE && i >= MIN_SAFE ? Number(i) : i;
  }
  const d = Number(`${m}e${e}`);
  if (Number.isFinite(d) && d !== 0 && !Number.isInteger(d)) {
    const x = decOfDouble(d);
    if (x.m === m && x.e === e) return d;
  }
  return new RegoDecimal(m, e);
}

export function compareDec(a: Dec, b: Dec): number {
  const sa = a.m < 0n ? -1 : a.m > 0n ? 1 : 0;
  const sb = b.m < 0n ? -1 : b.m > 0n ? 1 : 0;
  if (sa !== sb) return sa < sb ? -1 : 1;
  if (sa === 0) return 0;
  const e = Math.min(a.e, b.e);
  const x = a.m * 10n ** BigInt(a.e - e);
  const y = b.m * 10n ** BigInt(b.e - e);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * A number that keeps the text it was written with (`1e3`, `1.0`, `1.10`,
 * `-0`) because that text is not the canonical print of its value. OPA keeps
 * a number's text (Go json.Number) until arithmetic touches it, and prints it
 * in sprintf, json.marshal, Term.String. `m`/`e` hold the value (possibly an
 * integer, e >= 0) so comparisons work as for any number; `value` is the
 * canonical number every computation uses.
 */
export class RegoNumText extends RegoDecimal {
  constructor(
    readonly value: number | bigint | RegoDecimal,
    readonly text: string,
    /** The value as `m * 10^e` when the caller has it already (cheaper than from a large integer). */
    dec?: Dec,
  ) {
    const d = dec ?? decOf(value);
    super(d.m, d.e);
  }

  override toString(): string {
    return this.text;
  }

  override toNumber(): number {
    return typeof this.value === 'object' ? this.value.toNumber() : Number(this.value);
  }
}

/** The canonical number a value stands for (strips kept text). */
export function plainNumber(n: number | bigint | RegoDecimal): number | bigint | RegoDecimal {
  return n instanceof RegoNumText ? n.value : n;
}

/** How a canonical number prints (what a number without kept text prints as). */
export function canonicalText(n: number | bigint | RegoDecimal): string {
  return typeof n === 'object' ? decimalText(n.m, n.e) : String(n);
}

/** `value`, carrying `text` when the text is not how `value` prints. */
export function withText(value: number | bigint | RegoDecimal, text: string, dec?: Dec): number | bigint | RegoDecimal {
  // An integer never prints with a point or an exponent: no need to print a large one to compare.
  if (typeof value === 'bigint' && /[.eE]/.test(text)) return new RegoNumText(value, text, dec);
  return canonicalText(value) === text ? value : new RegoNumText(value, text, dec);
}

/** Decimal text: plain for moderate exponents, scientific otherwise. */
export function decimalText(m: bigint, e: number): string {
  const neg = m < 0n;
  let digits = (neg ? -m : m).toString();
  let out: string;
  if (e >= 0) out = digits + '0'.repeat(e);
  else if (-e < digits.length) out = digits.slice(0, digits.length + e) + '.' + digits.slice(digits.length + e);
  else if (-e - digits.length <= 20) out = '0.' + '0'.repeat(-e - digits.length) + digits;
  else {
    const exp = e + digits.length - 1;
    digits = digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits;
    out = `${digits}e${exp}`;
  }
  return neg ? '-' + out : out;
}
