/**
 * The functions of Go's text/template (and, or, not, len, index, slice, eq, ne, lt, le, gt, ge, print, printf,
 * println, html, js, urlquery) over template values, with Go's error texts (without the `error calling <name>:` lead
 * the executor adds where Go does).
 */
import { fmtG, goFormat, type GoArg } from './sprintf.js';
import { GoFloat, GoInt, type GoVal, JsonNumber, TemplateError } from './go-template-parse.js';

export function truth(v: GoVal): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return v.length > 0;
  if (v instanceof JsonNumber) return v.text.length > 0;
  if (v instanceof GoInt) return v.v !== 0n;
  if (v instanceof GoFloat) return v.v !== 0;
  if (Array.isArray(v)) return v.length > 0;
  return v.size > 0;
}

export function fmtValue(v: GoVal): string {
  if (v === undefined) return '<no value>';
  if (v === null) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (v instanceof JsonNumber) return v.text;
  if (v instanceof GoInt) return v.v.toString();
  if (v instanceof GoFloat) return (v.v < 0 ? '-' : '') + fmtG(Math.abs(v.v), undefined);
  return collectionText(v, fmtValue);
}

/** fmt's text of an array or object, each element written by `element`; keys sorted as Go's fmt sorts them. */
function collectionText(v: GoVal[] | Map<string, GoVal>, element: (x: GoVal) => string): string {
  if (Array.isArray(v)) return '[' + v.map((x) => element(x)).join(' ') + ']';
  return (
    'map[' +
    [...v.keys()]
      .sort()
      .map((k) => `${k}:${element(v.get(k))}`)
      .join(' ') +
    ']'
  );
}

type Kind = 'bool' | 'int' | 'float' | 'string' | 'nil' | 'other';
function kind(v: GoVal): Kind {
  if (v === null || v === undefined) return 'nil';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string' || v instanceof JsonNumber) return 'string';
  if (v instanceof GoInt) return 'int';
  if (v instanceof GoFloat) return 'float';
  return 'other';
}
function str(v: GoVal): string {
  return v instanceof JsonNumber ? v.text : (v as string);
}

function compareBasic(a: GoVal, b: GoVal, op: string): number {
  const ka = kind(a);
  const kb = kind(b);
  if (ka !== kb) throw new TemplateError(`error calling ${op}: incompatible types for comparison: ${goType(a)} and ${goType(b)}`);
  if (ka === 'other' || ka === 'nil') throw new TemplateError(`error calling ${op}: invalid type for comparison`);
  if (ka === 'int') return Number((a as GoInt).v - (b as GoInt).v);
  if (ka === 'float') return (a as GoFloat).v - (b as GoFloat).v;
  if (ka === 'bool') {
    if (op !== 'eq' && op !== 'ne') throw new TemplateError(`error calling ${op}: invalid type for comparison`);
    return a === b ? 0 : 1;
  }
  const x = str(a);
  const y = str(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Go's eq for one pair: nil (a missing key or JSON null) equals only nil, and differs from anything else without an
 * error; two arrays or objects cannot be compared (Go's `non-comparable type(s)` names their values and types).
 */
function goEqual(a: GoVal, b: GoVal, op: string): boolean {
  const nilA = a === undefined || a === null;
  const nilB = b === undefined || b === null;
  if (nilA || nilB) return nilA && nilB;
  if (kind(a) === 'other' && kind(b) === 'other') {
    if (Array.isArray(a) !== Array.isArray(b))
      throw new TemplateError(`error calling ${op}: non-comparable types ${fmtS(a)}: ${goType(a)}, ${goType(b)}: ${fmtValue(b)}`);
    throw new TemplateError(`error calling ${op}: non-comparable type ${fmtS(b)}: ${goType(b)}`);
  }
  return compareBasic(a, b, op) === 0;
}

/** fmt's `%s` of a template value (a bool inside is `%!s(bool=true)`, nil `<nil>`). */
function fmtS(v: GoVal): string {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'boolean') return `%!s(bool=${v})`;
  if (v instanceof GoInt || v instanceof GoFloat) return `%!s(${goType(v)}=${fmtValue(v)})`;
  if (Array.isArray(v) || v instanceof Map) return collectionText(v, fmtS);
  return fmtValue(v);
}

function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** Go's signatures of the functions: how many fixed arguments each takes, and whether more may follow. */
export interface Signature {
  fixed: number;
  variadic: boolean;
}
const sig = (names: string[], fixed: number, variadic: boolean): Array<[string, Signature]> => names.map((n) => [n, { fixed, variadic }]);
export const SIGNATURES: ReadonlyMap<string, Signature> = new Map([
  ...sig(['and', 'or', 'index', 'slice', 'eq', 'printf', 'call'], 1, true),
  ...sig(['not', 'len'], 1, false),
  ...sig(['ne', 'lt', 'le', 'gt', 'ge'], 2, false),
  ...sig(['print', 'println', 'html', 'js', 'urlquery'], 0, true),
]);

/**
 * Calls a function (other than `call`) on evaluated arguments, its arity already checked as Go's executor does;
 * `boxed[i]` tells that argument `i` is a value Go holds inside an interface (an element read from the data).
 */
export function callFunction(name: string, args: GoVal[], boxed: readonly boolean[]): GoVal {
  switch (name) {
    case 'not':
      return !truth(args[0]);
    case 'and': {
      for (const a of args) if (!truth(a)) return a;
      return args[args.length - 1];
    }
    case 'or': {
      for (const a of args) if (truth(a)) return a;
      return args[args.length - 1];
    }
    case 'len': {
      const a = args[0];
      if (typeof a === 'string' || a instanceof JsonNumber) return new GoInt(BigInt(byteLength(str(a))));
      if (Array.isArray(a)) return new GoInt(BigInt(a.length));
      if (a instanceof Map) return new GoInt(BigInt(a.size));
      // A JSON null read from the data is a nil interface to Go; no value (a missing key, `nil`) has no type at all.
      if (a === null) throw new TemplateError('error calling len: len of nil pointer');
      if (a === undefined) throw new TemplateError('error calling len: reflect: call of reflect.Value.Type on zero Value');
      throw new TemplateError(`error calling len: len of type ${goType(a)}`);
    }
    case 'index':
      return index(args[0], args.slice(1));
    case 'slice':
      return slice(args[0], args.slice(1), boxed.slice(1));
    case 'eq': {
      if (args.length < 2) throw new TemplateError('error calling eq: missing argument for comparison');
      return args.slice(1).some((b) => goEqual(args[0], b, 'eq'));
    }
    case 'ne':
      return !goEqual(args[0], args[1], 'ne');
    case 'lt':
      return compareBasic(args[0], args[1], 'lt') < 0;
    case 'le':
      return compareBasic(args[0], args[1], 'le') <= 0;
    case 'gt':
      return compareBasic(args[0], args[1], 'gt') > 0;
    case 'ge':
      return compareBasic(args[0], args[1], 'ge') >= 0;
    case 'print':
      return sprint(args);
    case 'println':
      return args.map((a) => fmtValue(a === undefined ? null : a)).join(' ') + '\n';
    case 'printf':
      // The executor has checked the format is a Go string, as Go's evalArg does.
      return goFormat(args[0] as string, args.slice(1).map(goArg));
    case 'html':
      return htmlEscape(evalArgs(args));
    case 'js':
      return jsEscape(evalArgs(args));
    case 'urlquery':
      return queryEscape(evalArgs(args));
    default:
      throw new TemplateError(`template: template:1: function "${name}" not defined`);
  }
}

/** Go's dynamic type name of a template value. */
export function goType(v: GoVal): string {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof JsonNumber) return 'json.Number';
  if (v instanceof GoInt) return v.type;
  if (v instanceof GoFloat) return 'float64';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

/** A template value as Go's fmt receives it. */
function goArg(v: GoVal): GoArg {
  if (v === undefined || v === null) return { t: 'nil' };
  if (typeof v === 'string') return { t: 'string', v };
  if (typeof v === 'boolean') return { t: 'bool', v };
  if (v instanceof JsonNumber) return { t: 'string', v: v.text, type: 'json.Number' };
  if (v instanceof GoInt) return { t: 'int', v: v.v, type: v.type };
  if (v instanceof GoFloat) return { t: 'float', v: v.v };
  if (Array.isArray(v)) return { t: 'slice', v: v.map(goArg) };
  return { t: 'map', v: [...v.keys()].sort().map((k) => [k, goArg(v.get(k))]) };
}

/** fmt.Sprint: operands printed with %v, a space between two that are not strings. */
function sprint(args: GoVal[]): string {
  let out = '';
  const isStr = (x: GoVal): boolean => typeof x === 'string' || x instanceof JsonNumber;
  args.forEach((a, i) => {
    if (i > 0 && !isStr(a) && !isStr(args[i - 1])) out += ' ';
    out += fmtValue(a === undefined ? null : a);
  });
  return out;
}

/** text/template's evalArgs: one string argument as it is, anything else through fmt.Sprint, nil as `<no value>`. */
function evalArgs(args: GoVal[]): string {
  if (args.length === 1 && typeof args[0] === 'string') return args[0];
  return sprint(args.map((a) => (a === undefined || a === null ? NO_VALUE : a)));
}

export const NO_VALUE = '<no value>';

const HTML_ESCAPES: Record<string, string> = { '\0': '\uFFFD', '"': '&#34;', "'": '&#39;', '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** template.HTMLEscapeString. */
function htmlEscape(s: string): string {
  return s.replace(/[\0"'&<>]/g, (c) => HTML_ESCAPES[c] as string);
}

const JS_ESCAPES: Record<string, string> = { '\\': '\\\\', "'": "\\'", '"': '\\"', '<': '\\u003C', '>': '\\u003E', '&': '\\u0026', '=': '\\u003D' };
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** template.JSEscapeString: quotes, backslash, `<>&=` and control or unprintable characters as escapes. */
function jsEscape(s: string): string {
  let out = '';
  for (const c of s) {
    const code = c.codePointAt(0) as number;
    const special = JS_ESCAPES[c];
    if (special !== undefined) out += special;
    else if (code < 0x20) out += '\\u00' + code.toString(16).toUpperCase().padStart(2, '0');
    else if (code < 0x80 || PRINTABLE.test(c)) out += c;
    else out += '\\u' + code.toString(16).toUpperCase().padStart(4, '0');
  }
  return out;
}

/** url.QueryEscape: unreserved bytes kept, space as `+`, every other byte `%XX`. */
function queryEscape(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** An index argument of `index` or `slice` (Go's indexArg), checked against `cap`. */
function indexArg(k: GoVal, cap: number): number {
  if (k === undefined || k === null) throw new TemplateError('cannot index slice/array with nil');
  if (!(k instanceof GoInt)) throw new TemplateError(`cannot index slice/array with type ${goType(k)}`);
  if (k.v < 0n || k.v > BigInt(cap)) throw new TemplateError(`index out of range: ${k.v}`);
  return Number(k.v);
}

/** Go's `index`: into arrays, strings (a byte) and maps (a missing key is nil). */
function index(item: GoVal, keys: GoVal[]): GoVal {
  if (item === undefined || item === null) throw new TemplateError('error calling index: index of untyped nil');
  let v: GoVal = item;
  for (const k of keys) {
    if (v === undefined || v === null) throw new TemplateError('error calling index: index of nil pointer');
    try {
      if (Array.isArray(v) || typeof v === 'string' || v instanceof JsonNumber) {
        const bytes: Buffer | undefined = Array.isArray(v) ? undefined : Buffer.from(str(v), 'utf8');
        const length: number = bytes === undefined ? (v as GoVal[]).length : bytes.length;
        const i = indexArg(k, length);
        // indexArg lets the length through and reflect's Index then panics (recovered by Go's safeCall).
        if (i === length) throw new TemplateError(`reflect: ${bytes === undefined ? 'slice' : 'string'} index out of range`);
        v = bytes === undefined ? (v as GoVal[])[i] : new GoInt(BigInt(bytes[i] as number), 'uint8');
      } else if (v instanceof Map) {
        if (k === undefined || k === null) throw new TemplateError('value is nil; should be of type string');
        if (typeof k !== 'string') throw new TemplateError(`value has type ${goType(k)}; should be string`);
        v = v.has(k) ? v.get(k) : null;
      } else {
        throw new TemplateError(`can't index item of type ${goType(v)}`);
      }
    } catch (e) {
      if (e instanceof TemplateError && !e.message.startsWith('error calling')) throw new TemplateError(`error calling index: ${e.message}`);
      throw e;
    }
  }
  return v;
}

/** Go's `slice`: `slice x 1 2` is x[1:2]; strings by bytes; at most three indexes, three only for arrays. */
function slice(item: GoVal, indexes: GoVal[], boxed: readonly boolean[]): GoVal {
  const fail = (message: string): never => {
    throw new TemplateError(`error calling slice: ${message}`);
  };
  if (item === undefined || item === null) return fail('slice of untyped nil');
  if (indexes.length > 3) return fail(`too many slice indexes: ${indexes.length}`);
  const text = typeof item === 'string' || item instanceof JsonNumber;
  if (!text && !Array.isArray(item)) return fail(`can't slice item of type ${goType(item)}`);
  if (text && indexes.length === 3) return fail('cannot 3-index slice a string');
  const bytes = text ? Buffer.from(str(item), 'utf8') : undefined;
  const length = bytes === undefined ? (item as GoVal[]).length : bytes.length;
  const idx = [0, length, length];
  indexes.forEach((k, i) => {
    // Unlike index, slice does not look inside the interface an index read from the data is in.
    if (boxed[i] === true && k !== undefined) fail('cannot index slice/array with type interface {}');
    try {
      idx[i] = indexArg(k, length);
    } catch (e) {
      fail((e as Error).message);
    }
  });
  const [from, to, max] = idx as [number, number, number];
  if (from > to) return fail(`invalid slice index: ${from} > ${to}`);
  if (indexes.length === 3 && to > max) return fail(`invalid slice index: ${to} > ${max}`);
  return bytes === undefined ? (item as GoVal[]).slice(from, to) : goUtf8(bytes.subarray(from, to));
}

/** Bytes as Go's JSON writes them: a string cut inside a character reads U+FFFD for each byte of the broken sequence. */
function goUtf8(bytes: Buffer): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    const n = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    const chunk = n === 0 ? undefined : bytes.subarray(i, i + n);
    const text = chunk?.toString('utf8');
    if (chunk !== undefined && chunk.length === n && Buffer.from(text as string, 'utf8').equals(chunk)) {
      out += text;
      i += n;
    } else {
      out += '\uFFFD';
      i++;
    }
  }
  return out;
}
