/**
 * sprintf with Go's fmt semantics, as OPA calls it: numbers are passed as Go
 * ints, *big.Int, float64 or their text (see numberArg), strings as strings, and every
 * other value as its Rego text (a string). Supported: flags `+ - # 0 space`,
 * width, precision, and the verbs b c d e E f F g G o O q s t U v x X %.
 * Mismatches render like Go: `%!d(string=hi)`, `%!s(MISSING)`.
 */
import { goQuote, formatValue } from '../value-format.js';
import { RegoDecimal, type Value } from '../value.js';
import { asArray, asString, type BuiltinDefinition } from './registry.js';

type GoArg = { t: 'int'; v: bigint } | { t: 'big'; v: bigint } | { t: 'float'; v: number } | { t: 'string'; v: string };

const INT_TEXT = /^-?\d+(?:\.0+)?$/;
const BIG_TEXT = /^[+-]?\d+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * How OPA v1.20.2 hands a number to Go's fmt, decided by the number's text
 * (ast.Number): an int64 when the text is an integer of at most 19
 * characters (`1.0` and `-0` count),
 * else a *big.Int for longer integer text, else a float64 when the text has a
 * fraction point and a float64 holds it, else the text itself as a string
 * (`1e3`, `1e-07`, `1.5e400`).
 */
function numberArg(text: string): GoArg {
  // OPA's int parse takes at most 19 characters after the sign (1.00000000000000000 is an int, 1.000000000000000000 a float).
  if (INT_TEXT.test(text) && text.length - (text.startsWith('-') ? 1 : 0) <= 19) {
    const dot = text.indexOf('.');
    const i = BigInt(dot === -1 ? text : text.slice(0, dot));
    if (i >= INT64_MIN && i <= INT64_MAX) return { t: 'int', v: i };
  }
  if (BIG_TEXT.test(text)) return { t: 'big', v: BigInt(text) };
  if (text.includes('.')) {
    const f = Number(text);
    if (Number.isFinite(f)) return { t: 'float', v: f };
  }
  return { t: 'string', v: text };
}

function toGo(v: Value): GoArg {
  if (typeof v === 'string') return { t: 'string', v };
  if (typeof v === 'number') {
    if (Number.isInteger(v)) return { t: 'int', v: BigInt(v) };
    return numberArg(String(v));
  }
  if (typeof v === 'bigint') return v >= INT64_MIN && v <= INT64_MAX ? { t: 'int', v } : { t: 'big', v };
  if (v instanceof RegoDecimal) return numberArg(v.toString());
  return { t: 'string', v: formatValue(v) };
}

interface Spec {
  minus: boolean;
  plus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  width: number | undefined;
  prec: number | undefined;
}

function pad(s: string, spec: Spec, numeric: boolean): string {
  if (spec.width === undefined || s.length >= spec.width) return s;
  const n = spec.width - [...s].length;
  if (n <= 0) return s;
  if (spec.minus) return s + ' '.repeat(n);
  if (spec.zero && numeric) {
    const sign = /^[+\- ]/.test(s) ? (s[0] as string) : '';
    return sign + '0'.repeat(n) + s.slice(sign.length);
  }
  return ' '.repeat(n) + s;
}

function signed(body: string, negative: boolean, spec: Spec): string {
  if (negative) return '-' + body;
  if (spec.plus) return '+' + body;
  if (spec.space) return ' ' + body;
  return body;
}

function expDigits(e: string): string {
  // JS "e+6" -> Go "e+06"
  return e.replace(/e([+-])(\d)$/, 'e$10$2');
}

/** Go %e with precision p. */
function fmtE(x: number, p: number): string {
  return expDigits(x.toExponential(p));
}

/** Go %g: shortest (p undefined) or p significant digits. */
export function fmtG(x: number, p: number | undefined): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  let digits: string;
  let exp: number;
  if (p === undefined) {
    const s = x.toExponential();
    const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s) as RegExpExecArray;
    digits = (m[2] as string) + (m[3] ?? '');
    exp = Number(m[4]);
  } else {
    const prec = p === 0 ? 1 : p;
    const s = Math.abs(x).toExponential(prec - 1);
    const m = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s) as RegExpExecArray;
    digits = ((m[1] as string) + (m[2] ?? '')).replace(/0+$/, '') || '0';
    exp = Number(m[3]);
  }
  const eprec = p === undefined ? 6 : p === 0 ? 1 : p;
  const neg = x < 0 ? '-' : '';
  if (exp < -4 || exp >= eprec) {
    const mant = digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits;
    const e = Math.abs(exp);
    return `${neg}${mant}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' + e : e}`;
  }
  if (exp < 0) return `${neg}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return neg + digits + '0'.repeat(exp + 1 - digits.length);
  return `${neg}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

function fmtF(x: number, p: number): string {
  if (Math.abs(x) >= 1e21) {
    // toFixed switches to exponent form; expand exactly.
    const big = BigInt(Math.round(x));
    return big.toString() + (p > 0 ? '.' + '0'.repeat(p) : '');
  }
  return x.toFixed(p);
}

function goValue(a: GoArg): string {
  switch (a.t) {
    case 'int':
    case 'big':
      return a.v.toString();
    case 'float':
      return fmtG(a.v, undefined);
    case 'string':
      return a.v;
  }
}

function typeName(a: GoArg): string {
  return a.t === 'int' ? 'int64' : a.t === 'big' ? '*big.Int' : a.t === 'float' ? 'float64' : 'string';
}

function bad(verb: string, a: GoArg, spec?: Spec): string {
  // *big.Int formats itself and reports an unknown verb without the pointer star.
  const t = a.t === 'big' ? 'big.Int' : typeName(a);
  // Go prints the value with %v under the same flags: a precision cuts a
  // string to that many characters and pads an int with zeros.
  let v = goValue(a);
  const prec = spec?.prec;
  if (prec !== undefined) {
    if (a.t === 'string') v = [...a.v].slice(0, prec).join('');
    else if (a.t === 'int') {
      const neg = a.v < 0n;
      const digits = (neg ? -a.v : a.v).toString();
      v = (neg ? '-' : '') + (prec === 0 && a.v === 0n ? '' : digits.padStart(prec, '0'));
    }
  }
  return `%!${verb}(${t}=${v})`;
}

function formatInt(v: bigint, verb: string, spec: Spec): string {
  const neg = v < 0n;
  const abs = neg ? -v : v;
  let body: string;
  switch (verb) {
    case 'd':
    case 'v':
    case 's':
      body = abs.toString(10);
      break;
    case 'b':
      body = (spec.sharp ? '0b' : '') + abs.toString(2);
      break;
    case 'o':
      body = (spec.sharp ? '0' : '') + abs.toString(8);
      break;
    case 'O':
      body = '0o' + abs.toString(8);
      break;
    case 'x':
      body = (spec.sharp ? '0x' : '') + abs.toString(16);
      break;
    case 'X':
      body = (spec.sharp ? '0X' : '') + abs.toString(16).toUpperCase();
      break;
    default:
      return '';
  }
  if (spec.prec !== undefined) {
    const digits = body.replace(/^0[xXbo]?/, '');
    if (digits.length < spec.prec) body = body.slice(0, body.length - digits.length) + digits.padStart(spec.prec, '0');
  }
  return pad(signed(body, neg, spec), spec, spec.prec === undefined);
}

function formatFloat(x: number, verb: string, spec: Spec): string {
  let s: string;
  switch (verb) {
    case 'v':
    case 'g':
      s = fmtG(Math.abs(x), spec.prec);
      break;
    case 'G':
      s = fmtG(Math.abs(x), spec.prec).toUpperCase();
      break;
    case 'e':
      s = fmtE(Math.abs(x), spec.prec ?? 6);
      break;
    case 'E':
      s = fmtE(Math.abs(x), spec.prec ?? 6).toUpperCase();
      break;
    case 'f':
    case 'F':
      s = fmtF(Math.abs(x), spec.prec ?? 6);
      break;
    case 'x':
      s = fmtHexFloat(Math.abs(x), spec.prec);
      break;
    case 'X':
      s = fmtHexFloat(Math.abs(x), spec.prec).toUpperCase();
      break;
    default:
      return '';
  }
  return pad(signed(s, x < 0 || Object.is(x, -0), spec), spec, true);
}

/**
 * Go's `strconv.FormatFloat(x, 'x', prec, 64)` for x >= 0: `0x1.8p+00`, the
 * mantissa in hex (shortest exact when prec is undefined, else rounded half
 * to even to prec digits) and a binary exponent of at least two digits.
 */
function fmtHexFloat(x: number, prec: number | undefined): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'NaN' : '+Inf';
  let mant = 0n;
  let exp = 0;
  if (x !== 0) {
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, x);
    const bits = view.getBigUint64(0);
    const e = Number((bits >> 52n) & 0x7ffn);
    mant = bits & ((1n << 52n) - 1n);
    if (e === 0) {
      exp = -1022;
      while (mant < 1n << 52n) {
        mant <<= 1n;
        exp--;
      }
    } else {
      mant |= 1n << 52n;
      exp = e - 1023;
    }
  }
  let digits: string;
  if (prec === undefined) {
    digits = (mant & ((1n << 52n) - 1n)).toString(16).padStart(13, '0').replace(/0+$/, '');
  } else {
    if (prec < 13) {
      const shift = BigInt((13 - prec) * 4);
      const half = 1n << (shift - 1n);
      const rem = mant & ((1n << shift) - 1n);
      mant >>= shift;
      if (rem > half || (rem === half && (mant & 1n) === 1n)) mant++;
      if (mant >> BigInt(prec * 4) >= 2n) {
        mant >>= 1n;
        exp++;
      }
      mant <<= shift;
    }
    digits = (mant & ((1n << 52n) - 1n)).toString(16).padStart(13, '0').slice(0, Math.min(prec, 13)).padEnd(prec, '0');
  }
  const lead = x === 0 ? '0' : '1';
  const e = Math.abs(exp).toString().padStart(2, '0');
  return `0x${lead}${digits === '' ? '' : `.${digits}`}p${exp < 0 ? '-' : '+'}${e}`;
}

function formatString(s: string, verb: string, spec: Spec): string {
  switch (verb) {
    case 's':
    case 'v': {
      const r = spec.prec === undefined ? s : [...s].slice(0, spec.prec).join('');
      return pad(r, spec, false);
    }
    case 'q':
      return pad(spec.sharp && !s.includes('`') ? '`' + s + '`' : goQuote(s), spec, false);
    case 'x':
    case 'X': {
      const bytes = [...Buffer.from(s, 'utf8')].map((b) => b.toString(16).padStart(2, '0'));
      const out = bytes.join(spec.space ? ' ' : '');
      return pad(verb === 'X' ? out.toUpperCase() : out, spec, false);
    }
    default:
      return '';
  }
}

function formatOne(verb: string, a: GoArg, spec: Spec): string {
  if (verb === 'T') return pad(typeName(a), spec, false);
  switch (a.t) {
    case 'int':
    case 'big': {
      if ('dvsbo0xXO'.includes(verb) && verb !== '0') {
        if (a.t === 'int' && verb === 's') return bad(verb, a, spec);
        return formatInt(a.v, verb, spec);
      }
      if (a.t === 'int') {
        if (verb === 'c') return pad(String.fromCodePoint(Number(a.v)), spec, false);
        if (verb === 'q') return pad(`'${String.fromCodePoint(Number(a.v))}'`, spec, false);
        if (verb === 'U') return pad('U+' + a.v.toString(16).toUpperCase().padStart(4, '0'), spec, false);
        if ('eEfFgG'.includes(verb)) return bad(verb, a, spec);
      }
      return bad(verb, a, spec);
    }
    case 'float':
      if ('vgGeEfFxX'.includes(verb)) return formatFloat(a.v, verb, spec);
      return bad(verb, a, spec);
    case 'string': {
      const r = formatString(a.v, verb, spec);
      return r === '' && !'svqxX'.includes(verb) ? bad(verb, a, spec) : r;
    }
  }
}

/** Go's fmt refuses widths and precisions beyond a million (`tooLarge`): they would only build huge strings. */
function tooLarge(n: number): boolean {
  return n > 1e6 || n < -1e6;
}

export function goSprintf(format: string, values: readonly Value[]): string {
  const args = values.map(toGo);
  let out = '';
  let argi = 0;
  let i = 0;
  while (i < format.length) {
    const c = format[i] as string;
    if (c !== '%') {
      out += c;
      i++;
      continue;
    }
    i++;
    const spec: Spec = { minus: false, plus: false, sharp: false, space: false, zero: false, width: undefined, prec: undefined };
    for (; i < format.length; i++) {
      const f = format[i];
      if (f === '-') spec.minus = true;
      else if (f === '+') spec.plus = true;
      else if (f === '#') spec.sharp = true;
      else if (f === ' ') spec.space = true;
      else if (f === '0') spec.zero = !spec.minus;
      else break;
    }
    const num = (): number | undefined => {
      if (format[i] === '*') {
        i++;
        const a = args[argi++];
        if (a !== undefined && a.t === 'int' && !tooLarge(Number(a.v))) return Number(a.v);
        badStar = true;
        return undefined;
      }
      // Go's parsenum: digits read while the number so far is at most 1e6; past that the
      // rest of the format is taken as the number (so `%0100000000d` prints %!(NOVERB), as in Go and OPA).
      let n: number | undefined;
      for (; i < format.length && format.charCodeAt(i) >= 48 && format.charCodeAt(i) <= 57; i++) {
        if (tooLarge(n ?? 0)) {
          i = format.length;
          return undefined;
        }
        n = (n ?? 0) * 10 + (format.charCodeAt(i) - 48);
      }
      return n;
    };
    let badStar = false;
    spec.width = num();
    if (badStar) out += '%!(BADWIDTH)';
    if (format[i] === '.') {
      i++;
      badStar = false;
      spec.prec = num() ?? 0;
      if (badStar) out += '%!(BADPREC)';
    }
    const verb = format[i];
    if (verb === undefined) {
      out += '%!(NOVERB)';
      break;
    }
    i++;
    if (verb === '%') {
      out += '%';
      continue;
    }
    const a = args[argi++];
    if (a === undefined) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    out += formatOne(verb, a, spec);
  }
  if (argi < args.length) {
    out +=
      '%!(EXTRA ' +
      args
        .slice(argi)
        .map((a) => `${typeName(a)}=${goValue(a)}`)
        .join(', ') +
      ')';
  }
  return out;
}

export const sprintfBuiltins: BuiltinDefinition[] = [
  {
    name: 'sprintf',
    args: ['string', 'array'],
    result: 'string',
    impl: ([f, a]) => goSprintf(asString(f, 1), asArray(a, 2)),
  },
];
