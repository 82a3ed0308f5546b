/**
 * sprintf with Go's fmt semantics, as OPA calls it: numbers are passed as Go
 * ints, *big.Int, float64 or their text (see numberArg), strings as strings, and every
 * other value as its Rego text (a string). Supported: flags `+ - # 0 space`,
 * width, precision, and the verbs b c d e E f F g G o O q s t U v x X %.
 * Mismatches render like Go: `%!d(string=hi)`, `%!s(MISSING)`.
 */
import { goQuote, formatValue } from '../value-format.js';
import { RegoDecimal, type Value } from '../value.js';
import { goBytes, joined } from '../go-bytes.js';
import { asArray, asString, type BuiltinDefinition } from './registry.js';

/**
 * A value as Go's fmt sees it. `type` names a Go type other than the default
 * (`int` for a template's integer, `json.Number` for a number a template reads
 * from its data); bools, nil and composites reach fmt only from templates
 * (Rego's sprintf hands them over as their text).
 */
export type GoArg =
  | { t: 'int'; v: bigint; type?: string }
  | { t: 'big'; v: bigint }
  | { t: 'float'; v: number }
  | { t: 'string'; v: string; type?: string }
  | { t: 'bool'; v: boolean }
  | { t: 'nil' }
  | { t: 'slice'; v: GoArg[] }
  | { t: 'map'; v: Array<[string, GoArg]> };

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
  /** `%#v`: Go syntax (set for the v verb in place of `sharp`, as Go's fmt does). */
  sharpV?: boolean;
  /** `%+v`: set in place of `plus`; only a value that formats itself (*big.Int) still sees it as `+`. */
  plusV?: boolean;
}

/**
 * Go's padding to the width: `number` puts zeros (the `0` flag) after the
 * sign, `text` puts them in front as Go's padString does (`%06s` of "ab" is
 * `0000ab`), `spaces` never uses zeros (an integer with a precision).
 */
function pad(s: string, spec: Spec, mode: 'number' | 'text' | 'spaces'): string {
  if (spec.width === undefined || s.length >= spec.width) return s;
  const n = spec.width - [...s].length;
  if (n <= 0) return s;
  if (spec.minus) return s + ' '.repeat(n);
  if (spec.zero && mode === 'number') {
    const sign = /^[+\- ]/.test(s) ? (s[0] as string) : '';
    return sign + '0'.repeat(n) + s.slice(sign.length);
  }
  return (spec.zero && mode === 'text' ? '0' : ' ').repeat(n) + s;
}

function signed(body: string, negative: boolean, spec: Spec): string {
  if (negative) return '-' + body;
  if (spec.plus) return '+' + body;
  if (spec.space) return ' ' + body;
  return body;
}

/** A finite double as `mant * 2 ** exp`, exactly. */
function binaryParts(x: number): { mant: bigint; exp: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const e = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  return e === 0 ? { mant: frac, exp: -1074 } : { mant: frac | (1n << 52n), exp: e - 1075 };
}

/** round(|x| * 10 ** k), exactly, ties to even (Go's strconv rounds the exact binary value so; JS's toFixed rounds ties up). */
function scaledRound(x: number, k: number): bigint {
  const { mant, exp } = binaryParts(x);
  let num = mant;
  let den = 1n;
  if (k >= 0) num *= 10n ** BigInt(k);
  else den = 10n ** BigInt(-k);
  if (exp >= 0) num <<= BigInt(exp);
  else den <<= BigInt(-exp);
  const q = num / den;
  const twice = (num % den) * 2n;
  return twice > den || (twice === den && (q & 1n) === 1n) ? q + 1n : q;
}

/** |x| with `p` digits after the point (Go's %f), for any precision Go allows. */
function fixedDigits(x: number, p: number): string {
  const digits = scaledRound(x, p)
    .toString()
    .padStart(p + 1, '0');
  return p === 0 ? digits : `${digits.slice(0, digits.length - p)}.${digits.slice(digits.length - p)}`;
}

/** |x| as `d.ddd` with `p` digits after the point and its decimal exponent (Go's %e digits), rounded ties to even. */
function exponentDigits(x: number, p: number): { mantissa: string; exp: number } {
  if (x === 0) return { mantissa: p === 0 ? '0' : `0.${'0'.repeat(p)}`, exp: 0 };
  let exp = Math.floor(Math.log10(Math.abs(x)));
  let q = scaledRound(x, p - exp);
  const low = 10n ** BigInt(p);
  // log10 can be one off near powers of ten, and rounding can carry into a new digit: correct from the exact value.
  while (q >= low * 10n) q = scaledRound(x, p - ++exp);
  while (q < low) q = scaledRound(x, p - --exp);
  const digits = q.toString();
  return { mantissa: p === 0 ? digits : `${digits[0]}.${digits.slice(1)}`, exp };
}

/** Go %e with precision p. */
function fmtE(x: number, p: number): string {
  const { mantissa, exp } = exponentDigits(x, p);
  const e = Math.abs(exp);
  return `${mantissa}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' + e : e}`;
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
    const rounded = exponentDigits(x, prec - 1);
    digits = rounded.mantissa.replace('.', '').replace(/0+$/, '') || '0';
    exp = rounded.exp;
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
  return (x < 0 ? '-' : '') + fixedDigits(x, p);
}

/** Go's name of the argument's dynamic type, as `%T` and bad verbs print it. */
function typeName(a: GoArg): string {
  switch (a.t) {
    case 'int':
      return a.type ?? 'int64';
    case 'big':
      return '*big.Int';
    case 'float':
      return 'float64';
    case 'string':
      return a.type ?? 'string';
    case 'bool':
      return 'bool';
    case 'nil':
      return '<nil>';
    case 'slice':
      return '[]interface {}';
    case 'map':
      return 'map[string]interface {}';
  }
}

const NO_FLAGS: Spec = { minus: false, plus: false, sharp: false, space: false, zero: false, width: undefined, prec: undefined };

/**
 * Go's badVerb: `%!d(string=hi)`. The value is printed with %v under the
 * same flags (a width pads it, a precision cuts a string or pads an int with
 * zeros), `%!d(<nil>)` for nil.
 */
function bad(verb: string, a: GoArg, spec: Spec): string {
  if (a.t === 'nil') return `%!${verb}(<nil>)`;
  // *big.Int formats itself: it reports an unknown verb without the pointer star, and without the flags.
  if (a.t === 'big') return `%!${verb}(big.Int=${a.v.toString()})`;
  return `%!${verb}(${typeName(a)}=${formatOne('v', a, { ...spec, sharpV: false })})`;
}

/** The first `prec` characters (Go's truncateString; a precision on %s, %q and %T). */
function truncate(s: string, prec: number | undefined): string {
  return prec === undefined ? s : [...s].slice(0, prec).join('');
}

const INVALID_RUNE = 0xfffd;

/** An int as a rune, as Go's %c and %q take it: anything not a Unicode scalar value is U+FFFD. */
function runeOf(v: bigint): number {
  return v < 0n || v > 0x10ffffn || (v >= 0xd800n && v <= 0xdfffn) ? INVALID_RUNE : Number(v);
}

/** strconv.QuoteRune (ToASCII with `ascii`). */
function quoteRune(r: number, ascii: boolean): string {
  const ch = String.fromCodePoint(r);
  if (ch === "'") return "'\\''";
  if (ch === '"') return `'"'`;
  return `'${goQuote(ch, ascii).slice(1, -1)}'`;
}

/** strconv.CanBackquote: no backquote, no control character but tab, no U+FEFF. */
function canBackquote(s: string): boolean {
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (ch === '`' || c === 0xfeff || c === 0x7f || (c < 0x20 && c !== 0x09) || (c >= 0xd800 && c <= 0xdfff)) return false;
  }
  return true;
}

/** Go's %U: `U+` and at least four (or the precision's) uppercase hex digits of the int as uint64; `#` adds the character. */
function formatUnicode(v: bigint, spec: Spec): string {
  const u = BigInt.asUintN(64, v);
  let s =
    'U+' +
    u
      .toString(16)
      .toUpperCase()
      .padStart(Math.max(4, spec.prec ?? 0), '0');
  if (spec.sharp && u <= 0x10ffffn && !(u >= 0xd800n && u <= 0xdfffn)) {
    const ch = String.fromCodePoint(Number(u));
    if (goQuote(ch).slice(1, -1) === ch) s += ` '${ch}'`;
  }
  return pad(s, spec, 'spaces');
}

/** strconv.FormatFloat(x, 'b', -1, 64): the binary mantissa in decimal and its exponent, `4503599627370496p-55`. */
function fmtBinaryFloat(x: number): string {
  if (x === 0) return '0p-1074';
  const { mant, exp } = binaryParts(x);
  return `${mant}p${exp < 0 ? '-' : '+'}${Math.abs(exp)}`;
}

/** Go's fmtInteger: a precision (or the `0` flag with a width) gives leading zeros, then the `#` prefix and the sign, then spaces. */
function formatInt(v: bigint, verb: string, spec: Spec): string {
  const neg = v < 0n;
  const abs = neg ? -v : v;
  let prec = 0;
  if (spec.prec !== undefined) {
    prec = spec.prec;
    // Go prints nothing but the padding for a zero with precision 0.
    if (prec === 0 && abs === 0n) return pad('', spec, 'spaces');
  } else if (spec.zero && !spec.minus && spec.width !== undefined) {
    prec = spec.width - (neg || spec.plus || spec.space ? 1 : 0);
  }
  let base: number;
  switch (verb) {
    case 'd':
    case 'v':
    case 's':
      base = 10;
      break;
    case 'b':
      base = 2;
      break;
    case 'o':
    case 'O':
      base = 8;
      break;
    case 'x':
    case 'X':
      base = 16;
      break;
    default:
      return '';
  }
  let body = abs.toString(base);
  if (verb === 'X') body = body.toUpperCase();
  body = body.padStart(prec, '0');
  if (spec.sharp) {
    if (base === 2) body = '0b' + body;
    else if (base === 8 && body[0] !== '0') body = '0' + body;
    else if (base === 16) body = (verb === 'X' ? '0X' : '0x') + body;
  }
  if (verb === 'O') body = '0o' + body;
  return pad(signed(body, neg, spec), spec, 'spaces');
}

/**
 * Go's `#` on a float: the decimal point always, and for %g, %G, %v and %x
 * trailing zeros up to the precision's significant digits (6 without one).
 * `num` is the number without its sign.
 */
function keepPoint(num: string, verb: string, prec: number | undefined): string {
  let digits = 'gGvx'.includes(verb) ? (prec ?? 6) : 0;
  let body = '+' + num;
  let tail = '';
  let hasPoint = false;
  let sawNonzero = false;
  for (let i = 1; i < body.length; i++) {
    const c = body[i] as string;
    if (c === '.') hasPoint = true;
    else if (c === 'p' || c === 'P' || ((c === 'e' || c === 'E') && verb !== 'x' && verb !== 'X')) {
      tail = body.slice(i);
      body = body.slice(0, i);
      break;
    } else {
      if (c !== '0') sawNonzero = true;
      if (sawNonzero) digits--;
    }
  }
  if (!hasPoint) {
    if (body.length === 2 && body[1] === '0') digits--;
    body += '.';
  }
  if (digits > 0) body += '0'.repeat(digits);
  return body.slice(1) + tail;
}

function formatFloat(x: number, verb: string, spec: Spec): string {
  if (!Number.isFinite(x) && 'vgGeEfFxXb'.includes(verb)) return pad(Number.isNaN(x) ? 'NaN' : x > 0 ? (spec.plus ? '+Inf' : 'Inf') : '-Inf', spec, 'spaces');
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
    case 'b':
      s = fmtBinaryFloat(Math.abs(x));
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
  if (spec.sharp && verb !== 'b') s = keepPoint(s, verb, spec.prec);
  return pad(signed(s, x < 0 || Object.is(x, -0), spec), spec, 'number');
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
    case 'v':
      if (spec.sharpV) return pad(goQuote(truncate(s, spec.prec)), spec, 'text');
      return pad(truncate(s, spec.prec), spec, 'text');
    case 'q': {
      const t = truncate(s, spec.prec);
      return pad(spec.sharp && canBackquote(t) ? '`' + t + '`' : goQuote(t, spec.plus), spec, 'text');
    }
    case 'x':
    case 'X':
      return hexBytes(goBytes(s), verb, spec);
    default:
      return '';
  }
}

/** Go's fmtSbx: the bytes (at most the precision's) in hex; `#` adds 0x, a space separates bytes (each with 0x under `#`). */
function hexBytes(bytes: Buffer, verb: string, spec: Spec): string {
  const length = spec.prec !== undefined && spec.prec < bytes.length ? spec.prec : bytes.length;
  if (length === 0) return pad('', spec, 'text');
  const prefix = verb === 'X' ? '0X' : '0x';
  let out = spec.sharp ? prefix : '';
  for (let i = 0; i < length; i++) {
    if (spec.space && i > 0) out += spec.sharp ? ' ' + prefix : ' ';
    const hex = (bytes[i] as number).toString(16).padStart(2, '0');
    out += verb === 'X' ? hex.toUpperCase() : hex;
  }
  return pad(out, spec, 'text');
}

function formatOne(verb: string, a: GoArg, spec: Spec): string {
  if (a.t === 'nil') return verb === 'T' || verb === 'v' ? pad('<nil>', spec, 'text') : bad(verb, a, spec);
  if (verb === 'T') return pad(truncate(typeName(a), spec.prec), spec, 'text');
  switch (a.t) {
    case 'int':
    case 'big': {
      if ('dvsbo0xXO'.includes(verb) && verb !== '0') {
        if (a.t === 'int' && verb === 's') return bad(verb, a, spec);
        return formatInt(a.v, verb, a.t === 'big' && spec.plusV === true ? { ...spec, plus: true } : spec);
      }
      if (a.t === 'int') {
        if (verb === 'c') return pad(String.fromCodePoint(runeOf(a.v)), spec, 'text');
        if (verb === 'q') return pad(quoteRune(runeOf(a.v), spec.plus), spec, 'text');
        if (verb === 'U') return formatUnicode(a.v, spec);
      }
      return bad(verb, a, spec);
    }
    case 'float':
      if ('vgGeEfFxXb'.includes(verb)) return formatFloat(a.v, verb, spec);
      return bad(verb, a, spec);
    case 'string': {
      const r = formatString(a.v, verb, spec);
      return r === '' && !'svqxX'.includes(verb) ? bad(verb, a, spec) : r;
    }
    case 'bool':
      return verb === 't' || verb === 'v' ? pad(String(a.v), spec, 'text') : bad(verb, a, spec);
    // Go formats a composite's elements one by one with the same verb and flags; a nil element is `<nil>`, unpadded, whatever the verb.
    case 'slice':
      if (spec.sharpV) return `[]interface {}{${a.v.map((e) => goSyntax(e, spec)).join(', ')}}`;
      return `[${a.v.map((e) => element(verb, e, spec)).join(' ')}]`;
    case 'map':
      if (spec.sharpV) return `map[string]interface {}{${a.v.map(([k, e]) => `${goQuote(k)}:${goSyntax(e, spec)}`).join(', ')}}`;
      return `map[${a.v.map(([k, e]) => `${element(verb, { t: 'string', v: k }, spec)}:${element(verb, e, spec)}`).join(' ')}]`;
  }
}

/** An element of a composite under %#v: Go syntax, nil as `interface {}(nil)`. */
function goSyntax(e: GoArg, spec: Spec): string {
  return e.t === 'nil' ? 'interface {}(nil)' : formatOne('v', e, spec);
}

function element(verb: string, e: GoArg, spec: Spec): string {
  return e.t === 'nil' ? '<nil>' : formatOne(verb, e, spec);
}

/** Go's fmt refuses widths and precisions beyond a million (`tooLarge`): they would only build huge strings. */
function tooLarge(n: number): boolean {
  return n > 1e6 || n < -1e6;
}

export function goSprintf(format: string, values: readonly Value[]): string {
  return goFormat(format, values.map(toGo));
}

/** Go's `fmt.Sprintf(format, args...)`. */
export function goFormat(format: string, args: readonly GoArg[]): string {
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
    if (verb === 'v') {
      // Go's fmt: `#` asks %v for Go syntax and `+` for field names; neither is a sign or a prefix there.
      spec.sharpV = spec.sharp;
      spec.sharp = false;
      spec.plusV = spec.plus;
      spec.plus = false;
    }
    out += formatOne(verb, a, spec);
  }
  if (argi < args.length) {
    out +=
      '%!(EXTRA ' +
      args
        .slice(argi)
        .map((a) => (a.t === 'nil' ? '<nil>' : `${typeName(a)}=${formatOne('v', a, NO_FLAGS)}`))
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
    // Raw bytes that meet may make a character (go-bytes.ts).
    impl: ([f, a]) => joined(goSprintf(asString(f, 1), asArray(a, 2))),
  },
];
