/**
 * Encoding builtins: base64.*, base64url.*, hex.* and urlquery.*, with the
 * behaviour of the Go standard library OPA calls (`encoding/base64`,
 * `encoding/hex`, `net/url`): strict padding, newlines ignored by the base64
 * decoders, `illegal base64 data at input byte N`, query escaping with
 * `+` for spaces, `invalid URL escape "%zz"`.
 *
 * Strings are their Go bytes (UTF-8, a raw byte as itself); decoded bytes that
 * are not valid UTF-8 stay raw bytes (go-bytes.ts), as in Go.
 */
import { goQuote } from '../value-format.js';
import { decodeRune, goBytes, runeWidth, stringFromBytes } from '../go-bytes.js';
import { compareStrings, RegoObject, RegoSet, type Value } from '../value.js';
import { asString, BuiltinError, type BuiltinDefinition, operandTypeError } from './registry.js';
import { goJSONKey } from '../value-gojson.js';

const utf8 = goBytes;

/** Bytes as a Go string (each byte that is not UTF-8 kept raw, see go-bytes.ts). */
export const goString = stringFromBytes;

/** Go's `strconv.Quote` of a byte string: valid UTF-8 as `goQuote` prints it, each invalid byte as `\xNN`. */
export function goQuoteBytes(bytes: Uint8Array): string {
  let out = '"';
  for (let i = 0; i < bytes.length;) {
    const cp = decodeRune(bytes, i);
    out += cp < 0 ? `\\x${(bytes[i] as number).toString(16).padStart(2, '0')}` : goQuote(String.fromCodePoint(cp)).slice(1, -1);
    i += runeWidth(cp);
  }
  return `${out}"`;
}

const STD_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function decodeMap(alphabet: string): Int16Array {
  const m = new Int16Array(256).fill(-1);
  for (let i = 0; i < alphabet.length; i++) m[alphabet.charCodeAt(i)] = i;
  return m;
}

const STD_MAP = decodeMap(STD_ALPHABET);
const URL_MAP = decodeMap(URL_ALPHABET);

const isNewline = (c: number | undefined): boolean => c === 0x0a || c === 0x0d;

/** Go's padded base64 decoder (`StdEncoding` / `URLEncoding`); throws on corrupt input. */
function base64Decode(text: string, map: Int16Array): Uint8Array {
  const src = utf8(text);
  const out: number[] = [];
  const corrupt = (at: number): BuiltinError => new BuiltinError(`illegal base64 data at input byte ${at}`);
  let si = 0;
  while (si < src.length) {
    const quantum: number[] = [];
    let dlen = 4;
    let j = 0;
    for (; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return Uint8Array.from(out);
        throw corrupt(si - j);
      }
      const c = src[si++] as number;
      const v = map[c] as number;
      if (v >= 0) {
        quantum[j] = v;
        continue;
      }
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== 0x3d || j < 2) throw corrupt(si - 1);
      // Padding: "==" after two symbols, "=" after three, then only newlines.
      if (j === 2) {
        while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) throw corrupt(src.length);
        if (src[si] !== 0x3d) throw corrupt(si - 1);
        si++;
      }
      while (si < src.length && isNewline(src[si])) si++;
      if (si < src.length) throw corrupt(si);
      dlen = j;
      break;
    }
    const [a = 0, b = 0, c = 0, d = 0] = quantum;
    const val = (a << 18) | (b << 12) | (c << 6) | d;
    const bytes = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff];
    out.push(...bytes.slice(0, dlen - 1));
  }
  return Uint8Array.from(out);
}

function hexByteError(b: number): BuiltinError {
  const printable = (b >= 0x20 && b < 0x7f) || (b >= 0xa1 && b !== 0xad);
  const code = `U+${b.toString(16).toUpperCase().padStart(4, '0')}`;
  return new BuiltinError(`encoding/hex: invalid byte: ${printable ? `${code} '${String.fromCharCode(b)}'` : code}`);
}

/** Go's `hex.DecodeString`. */
function hexDecode(text: string): Uint8Array {
  const src = utf8(text);
  const nibble = (c: number): number => (c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1);
  const out = new Uint8Array(src.length >> 1);
  let i = 0;
  for (; i + 1 < src.length; i += 2) {
    const hi = nibble(src[i] as number);
    const lo = nibble(src[i + 1] as number);
    if (hi < 0) throw hexByteError(src[i] as number);
    if (lo < 0) throw hexByteError(src[i + 1] as number);
    out[i >> 1] = (hi << 4) | lo;
  }
  if (src.length % 2 === 1) {
    if (nibble(src[i] as number) < 0) throw hexByteError(src[i] as number);
    throw new BuiltinError('encoding/hex: odd length hex string');
  }
  return out;
}

/** Go's `url.QueryEscape`. */
function queryEscape(s: string): string {
  let out = '';
  for (const b of utf8(s)) {
    if ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x2d || b === 0x5f || b === 0x2e || b === 0x7e) {
      out += String.fromCharCode(b);
    } else if (b === 0x20) out += '+';
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const isHex = (c: number | undefined): boolean => c !== undefined && ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));

/** Go's `url.QueryUnescape`. */
function queryUnescape(s: string): string {
  const src = utf8(s);
  const out: number[] = [];
  for (let i = 0; i < src.length; i++) {
    const c = src[i] as number;
    if (c === 0x25) {
      if (i + 2 >= src.length || !isHex(src[i + 1]) || !isHex(src[i + 2])) {
        // Go quotes the three bytes, which may cut a character: `"%a\xe6"`.
        throw new BuiltinError(`invalid URL escape ${goQuoteBytes(src.subarray(i, Math.min(i + 3, src.length)))}`);
      }
      out.push(parseInt(String.fromCharCode(src[i + 1] as number, src[i + 2] as number), 16));
      i += 2;
    } else out.push(c === 0x2b ? 0x20 : c);
  }
  return goString(Uint8Array.from(out));
}

/** Go's `url.ParseQuery`: every value of every key, in order; the error of the first bad pair. */
function parseQuery(query: string): Map<string, string[]> {
  const params = new Map<string, string[]>();
  let error: string | null = null;
  for (const pair of query.split('&')) {
    if (pair.includes(';')) {
      error = 'invalid semicolon separator in query';
      continue;
    }
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    try {
      const key = queryUnescape(eq < 0 ? pair : pair.slice(0, eq));
      const value = queryUnescape(eq < 0 ? '' : pair.slice(eq + 1));
      const list = params.get(key);
      if (list === undefined) params.set(key, [value]);
      else list.push(value);
    } catch (e) {
      if (error === null) error = (e as Error).message;
    }
  }
  if (error !== null) throw new BuiltinError(error);
  return params;
}

const VALUES_ERROR = 'operand 1 values must be string, array[string], or set[string]';

/** Go's `url.Values.Encode` over an object of strings or string collections. */
function encodeObject(v: Value | undefined): string {
  if (!(v instanceof RegoObject)) throw operandTypeError(1, v ?? null, 'object');
  // Keys as OPA turns them into JSON object keys; a later key with the same text wins.
  const params = new Map<string, string[]>();
  for (const [k, x] of v.entries()) {
    let values: string[];
    if (typeof x === 'string') values = [x];
    else if (Array.isArray(x) || x instanceof RegoSet) {
      values = (Array.isArray(x) ? x : x.values()).map((e) => {
        if (typeof e !== 'string') throw BuiltinError.type(VALUES_ERROR);
        return e;
      });
    } else throw BuiltinError.type(VALUES_ERROR);
    params.set(goJSONKey(k), values);
  }
  const parts: string[] = [];
  for (const key of [...params.keys()].sort(compareStrings)) {
    for (const value of params.get(key) ?? []) parts.push(`${queryEscape(key)}=${queryEscape(value)}`);
  }
  return parts.join('&');
}

function stringFn(name: string, f: (s: string) => Value): BuiltinDefinition {
  return { name, args: ['string'], result: 'string', impl: ([s]) => f(asString(s, 1)) };
}

export const encodingBuiltins: BuiltinDefinition[] = [
  stringFn('base64.encode', (s) => utf8(s).toString('base64')),
  stringFn('base64.decode', (s) => goString(base64Decode(s, STD_MAP))),
  {
    name: 'base64.is_valid',
    args: ['string'],
    result: 'boolean',
    impl: ([s]) => {
      if (typeof s !== 'string') return false;
      try {
        base64Decode(s, STD_MAP);
        return true;
      } catch {
        return false;
      }
    },
  },
  stringFn('base64url.encode', (s) => utf8(s).toString('base64').replace(/\+/g, '-').replace(/\//g, '_')),
  stringFn('base64url.encode_no_pad', (s) => utf8(s).toString('base64url')),
  stringFn('base64url.decode', (s) => {
    // Unpadded input is padded first (RFC 7515, appendix C).
    let padded = s;
    if (!s.endsWith('=')) {
      const rem = utf8(s).length % 4;
      if (rem === 1) throw new BuiltinError(`illegal base64url string: ${s}`);
      if (rem === 2) padded += '==';
      else if (rem === 3) padded += '=';
    }
    return goString(base64Decode(padded, URL_MAP));
  }),
  stringFn('hex.encode', (s) => utf8(s).toString('hex')),
  stringFn('hex.decode', (s) => goString(hexDecode(s))),
  stringFn('urlquery.encode', queryEscape),
  stringFn('urlquery.decode', queryUnescape),
  {
    name: 'urlquery.encode_object',
    args: ['object'],
    result: 'string',
    impl: ([o]) => encodeObject(o),
  },
  {
    name: 'urlquery.decode_object',
    args: ['string'],
    result: 'object',
    impl: ([s]) => {
      const params = parseQuery(asString(s, 1));
      return RegoObject.fromEntries([...params].map(([k, vs]) => [k, vs] as const));
    },
  },
];
