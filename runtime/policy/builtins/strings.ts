/**
 * String builtins. Indexes and lengths count Unicode code points (Go runes),
 * as OPA does, not UTF-16 units.
 */
import { isNumber, type NumberValue, RegoObject, RegoSet, type Value } from '../value.js';
import { asInt, asIterable, asNumberValue, asString, BuiltinError, type BuiltinDefinition, operandElementError, operandTypeError } from './registry.js';
import { truncate } from './numeric.js';
import { goString } from './encoding.js';
import { goBytes, hasRawBytes, joined, validUTF8 } from '../go-bytes.js';

function runes(s: string): string[] {
  return Array.from(s);
}

/** Go's `[]rune(s)`: a raw byte (go-bytes.ts) becomes U+FFFD. */
const goRunes = (s: string): string[] => Array.from(validUTF8(s));

/**
 * Byte-level search as Go's strings package does it. A needle without raw
 * bytes can only match where its UTF-16 text matches (UTF-8 is
 * self-synchronising and our strings hold raw bytes only where Go's decoder
 * finds no character); a needle with raw bytes may match inside a character,
 * so it is searched over the bytes.
 */
const byteNeedle = (x: string): boolean => hasRawBytes(x);

function bytesContains(s: string, x: string): boolean {
  return goBytes(s).includes(goBytes(x));
}

function bytesStartsWith(s: string, x: string): boolean {
  const a = goBytes(s);
  const b = goBytes(x);
  return b.length <= a.length && a.compare(b, 0, b.length, 0, b.length) === 0;
}

function bytesEndsWith(s: string, x: string): boolean {
  const a = goBytes(s);
  const b = goBytes(x);
  return b.length <= a.length && a.compare(b, 0, b.length, a.length - b.length) === 0;
}

/** Go's strings.Split over bytes (a non-empty separator). */
function bytesSplit(s: string, sep: string): string[] {
  const a = goBytes(s);
  const b = goBytes(sep);
  const out: string[] = [];
  let from = 0;
  for (let at = a.indexOf(b, from); at >= 0; at = a.indexOf(b, from)) {
    out.push(goString(a.subarray(from, at)));
    from = at + b.length;
  }
  out.push(goString(a.subarray(from)));
  return out;
}

/**
 * Go's reverseString as OPA runs it (`strings.reverse`, `strings.any_suffix_match`):
 * runes re-encoded from the end of a buffer as long as the string's bytes;
 * an invalid byte is re-encoded as U+FFFD (three bytes), which overwrites
 * what follows it or, near the buffer's start, panics as Go's
 * `utf8.EncodeRune` does (OPA reports `index out of range`).
 */
export function goReverse(s: string): string {
  if (!hasRawBytes(s)) return runes(s).reverse().join('');
  const src = goBytes(s);
  const size = src.length;
  const buf = Buffer.alloc(size);
  for (let start = 0; start < size;) {
    const r = goString(src.subarray(start, start + 4)).codePointAt(0) as number;
    const raw = r >= 0xdc80 && r <= 0xdcff;
    start += raw ? 1 : Buffer.byteLength(String.fromCodePoint(r), 'utf8');
    const enc = Buffer.from(raw ? '\ufffd' : String.fromCodePoint(r), 'utf8');
    if (enc.length > start) throw new BuiltinError(`runtime error: index out of range [${enc.length - 1}] with length ${start}`);
    enc.copy(buf, size - start);
  }
  return goString(buf);
}

function stringList(v: Value | undefined, pos: number): string[] {
  const items = asIterable(v, pos, 'set', 'array');
  return items.map((x) => {
    if (typeof x !== 'string') throw operandElementError(pos, v as Value, x, 'string');
    return x;
  });
}

/** The search operand of indexof / indexof_n as Go's `[]rune`; OPA refuses an empty one. */
function searchRunes(x: Value | undefined): string[] {
  const needle = goRunes(asString(x, 2));
  if (needle.length === 0) throw new BuiltinError('empty search character');
  return needle;
}

function runeIndexOf(hay: string[], needle: string[], from: number): number {
  outer: for (let i = from; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function trimSet(s: string, cutset: string, left: boolean, right: boolean): string {
  // Go decodes an invalid byte as U+FFFD, and a cutset holds U+FFFD when it has that character or an invalid byte.
  const cut = new Set(goRunes(cutset));
  const r = runes(s);
  if (hasRawBytes(s)) {
    const keys = goRunes(s);
    let a = 0;
    let b = keys.length;
    if (left) while (a < b && cut.has(keys[a] as string)) a++;
    if (right) while (b > a && cut.has(keys[b - 1] as string)) b--;
    return r.slice(a, b).join('');
  }
  let a = 0;
  let b = r.length;
  if (left) while (a < b && cut.has(r[a] as string)) a++;
  if (right) while (b > a && cut.has(r[b - 1] as string)) b--;
  return r.slice(a, b).join('');
}

const GO_SPACE =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

function splitGo(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  if (sep === '') {
    const r = runes(s);
    if (n < 0 || n >= r.length) return r;
    return [...r.slice(0, n - 1), r.slice(n - 1).join('')];
  }
  const parts = byteNeedle(sep) ? bytesSplit(s, sep) : s.split(sep);
  if (n < 0 || parts.length <= n) return parts;
  return [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

function anyMatch(name: string, test: (s: string, x: string) => boolean): BuiltinDefinition {
  const operand = (v: Value | undefined, pos: number): string[] => {
    if (typeof v === 'string') return [v];
    if (Array.isArray(v) || v instanceof RegoSet) {
      const items = Array.isArray(v) ? v : v.values();
      return items.map((x) => {
        if (typeof x !== 'string') throw operandElementError(pos, v, x, 'string');
        return x;
      });
    }
    throw operandTypeError(pos, v ?? null, 'string', 'set', 'array');
  };
  return {
    name,
    args: ['any', 'any'],
    result: 'boolean',
    impl: ([a, b]) => {
      const search = operand(a, 1);
      const base = operand(b, 2);
      return search.some((s) => base.some((x) => test(s, x)));
    },
  };
}

/**
 * Go's `strings.NewReplacer(old1, new1, ...).Replace(s)`, which OPA's
 * `strings.replace_n` calls with the pattern object's keys in sorted order:
 * left to right over the UTF-8 bytes, at each position the first pair
 * (in argument order) whose key starts there wins, without overlaps. An
 * empty key matches at every byte position, between the bytes of a
 * multi-byte character too, so the result can hold invalid UTF-8, which
 * reads back as one U+FFFD per stray byte, as in Go (`{"": "X"}` on `"é"`
 * gives `"X\ufffdX\ufffdX"`).
 */
export function goReplace(pairs: ReadonlyArray<readonly [string, string]>, s: string): string {
  const text = goBytes(s);
  const olds = pairs.map(([o]) => goBytes(o));
  const news = pairs.map(([, n]) => goBytes(n));
  const hasEmpty = olds.some((o) => o.length === 0);
  if (!hasEmpty && !pairs.some(([k]) => byteNeedle(k))) {
    // The usual case stays on JS strings: without an empty key, a match never starts inside a character.
    let out = '';
    let i = 0;
    let last = 0;
    while (i < s.length) {
      const hit = pairs.find(([k]) => s.startsWith(k, i));
      if (hit === undefined) i++;
      else {
        out += s.slice(last, i) + hit[1];
        i += hit[0].length;
        last = i;
      }
    }
    return joined(out + s.slice(last));
  }
  const out: Buffer[] = [];
  let last = 0;
  let previousEmpty = false;
  for (let i = 0; i <= text.length;) {
    // Right after an empty match at this position, the empty key is skipped (Go's lookup with ignoreRoot).
    const at = olds.findIndex((o) => !(previousEmpty && o.length === 0) && i + o.length <= text.length && text.compare(o, 0, o.length, i, i + o.length) === 0);
    previousEmpty = at >= 0 && (olds[at] as Buffer).length === 0;
    if (at < 0) {
      i++;
      continue;
    }
    out.push(text.subarray(last, i), news[at] as Buffer);
    i += (olds[at] as Buffer).length;
    last = i;
  }
  if (last < text.length) out.push(text.subarray(last));
  return goString(Buffer.concat(out));
}

export const stringBuiltins: BuiltinDefinition[] = [
  {
    name: 'concat',
    args: ['string', 'collection'],
    result: 'string',
    // Raw bytes that meet may make a character (go-bytes.ts).
    impl: ([d, c]) => joined(stringList(c, 2).join(asString(d, 1))),
  },
  { name: 'contains', args: ['string', 'string'], result: 'boolean', impl: ([s, x]) => stringTest(asString(s, 1), asString(x, 2), 'includes') },
  { name: 'startswith', args: ['string', 'string'], result: 'boolean', impl: ([s, x]) => stringTest(asString(s, 1), asString(x, 2), 'startsWith') },
  { name: 'endswith', args: ['string', 'string'], result: 'boolean', impl: ([s, x]) => stringTest(asString(s, 1), asString(x, 2), 'endsWith') },
  {
    name: 'format_int',
    keepsNumberText: true,
    args: ['number', 'number'],
    result: 'string',
    impl: ([x, b]) => {
      if (!isNumber(x)) throw operandTypeError(1, x ?? null, 'number');
      const base = asNumberValue(b, 2);
      if (base !== 2 && base !== 8 && base !== 10 && base !== 16) throw BuiltinError.type('operand 2 must be one of {2, 8, 10, 16}');
      return truncate(x as NumberValue).toString(base);
    },
  },
  {
    name: 'indexof',
    args: ['string', 'string'],
    result: 'number',
    impl: ([s, x]) => runeIndexOf(goRunes(asString(s, 1)), searchRunes(x), 0),
  },
  {
    name: 'indexof_n',
    args: ['string', 'string'],
    result: 'array',
    impl: ([s, x]) => {
      const hay = goRunes(asString(s, 1));
      const needle = searchRunes(x);
      const out: Value[] = [];
      for (let i = runeIndexOf(hay, needle, 0); i !== -1; i = runeIndexOf(hay, needle, i + 1)) {
        out.push(i);
      }
      return out;
    },
  },
  { name: 'lower', args: ['string'], result: 'string', impl: ([s]) => goCase(asString(s, 1), false) },
  { name: 'upper', args: ['string'], result: 'string', impl: ([s]) => goCase(asString(s, 1), true) },
  {
    name: 'replace',
    args: ['string', 'string', 'string'],
    result: 'string',
    impl: ([s, o, n]) => {
      const str = asString(s, 1);
      const old = asString(o, 2);
      const rep = asString(n, 3);
      // Go's generic replacer: an empty old string matches at every byte, inside a character too.
      if (old === '') return goReplace([[old, rep]], str);
      return joined((byteNeedle(old) ? bytesSplit(str, old) : str.split(old)).join(rep));
    },
  },
  {
    name: 'split',
    args: ['string', 'string'],
    result: 'array',
    impl: ([s, d]) => splitGo(asString(s, 1), asString(d, 2), -1),
  },
  {
    name: 'strings.split_n',
    args: ['string', 'string', 'number'],
    result: 'array',
    impl: ([s, d, n]) => {
      const parts = splitGo(asString(s, 1), asString(d, 2), -1);
      const count = asInt(n, 3);
      if (count === 0) return [];
      return count > 0 ? parts.slice(0, count) : parts.slice(Math.max(0, parts.length + count));
    },
  },
  {
    name: 'substring',
    args: ['string', 'number', 'number'],
    result: 'string',
    impl: ([s, a, l]) => {
      const str = asString(s, 1);
      let r = runes(str);
      const start = asInt(a, 2);
      const length = asInt(l, 3);
      if (start < 0) throw new BuiltinError('negative offset');
      if (hasRawBytes(str)) {
        // OPA hands back the operand when the cut keeps all of it; otherwise it cuts Go's `[]rune`, where a raw byte is U+FFFD.
        if (start === 0 && length >= r.length) return str;
        r = goRunes(str);
      }
      if (start >= r.length) return '';
      if (length < 0) return r.slice(start).join('');
      return r.slice(start, Math.min(r.length, start + length)).join('');
    },
  },
  { name: 'trim', args: ['string', 'string'], result: 'string', impl: ([s, c]) => trimSet(asString(s, 1), asString(c, 2), true, true) },
  { name: 'trim_left', args: ['string', 'string'], result: 'string', impl: ([s, c]) => trimSet(asString(s, 1), asString(c, 2), true, false) },
  { name: 'trim_right', args: ['string', 'string'], result: 'string', impl: ([s, c]) => trimSet(asString(s, 1), asString(c, 2), false, true) },
  {
    name: 'trim_prefix',
    args: ['string', 'string'],
    result: 'string',
    impl: ([s, p]) => {
      const str = asString(s, 1);
      const pre = asString(p, 2);
      if (byteNeedle(pre)) return bytesStartsWith(str, pre) ? goString(goBytes(str).subarray(goBytes(pre).length)) : str;
      return str.startsWith(pre) ? str.slice(pre.length) : str;
    },
  },
  {
    name: 'trim_suffix',
    args: ['string', 'string'],
    result: 'string',
    impl: ([s, p]) => {
      const str = asString(s, 1);
      const suf = asString(p, 2);
      if (byteNeedle(suf)) {
        const b = goBytes(str);
        return bytesEndsWith(str, suf) ? goString(b.subarray(0, b.length - goBytes(suf).length)) : str;
      }
      return suf !== '' && str.endsWith(suf) ? str.slice(0, str.length - suf.length) : str;
    },
  },
  { name: 'trim_space', args: ['string'], result: 'string', impl: ([s]) => asString(s, 1).replace(GO_SPACE, '') },
  {
    name: 'strings.replace_n',
    args: ['object', 'string'],
    result: 'string',
    impl: ([p, s]) => {
      if (!(p instanceof RegoObject)) throw operandTypeError(1, p ?? null, 'object');
      const pairs: Array<[string, string]> = [];
      for (const [k, v] of p.entries()) {
        if (typeof k !== 'string') throw BuiltinError.type('operand 1 non-string key found in pattern object');
        if (typeof v !== 'string') throw BuiltinError.type('operand 1 non-string value found in pattern object');
        pairs.push([k, v]);
      }
      return goReplace(pairs, asString(s, 2));
    },
  },
  { name: 'strings.reverse', args: ['string'], result: 'string', impl: ([s]) => goReverse(asString(s, 1)) },
  {
    name: 'strings.count',
    args: ['string', 'string'],
    result: 'number',
    impl: ([s, x]) => {
      const str = asString(s, 1);
      const sub = asString(x, 2);
      if (sub === '') return runes(str).length + 1;
      return (byteNeedle(sub) ? bytesSplit(str, sub) : str.split(sub)).length - 1;
    },
  },
  anyMatch('strings.any_prefix_match', (s, x) => stringTest(s, x, 'startsWith')),
  // OPA reverses both sides (goReverse, which may fail on a raw byte) and compares prefixes.
  anyMatch('strings.any_suffix_match', (s, x) => (hasRawBytes(s) || hasRawBytes(x) ? stringTest(goReverse(s), goReverse(x), 'startsWith') : s.endsWith(x))),
];

const ASCII = /^[\x00-\x7f]*$/;

/** Go's strings.Contains / HasPrefix / HasSuffix: over bytes when the needle holds a raw byte. */
function stringTest(s: string, x: string, op: 'includes' | 'startsWith' | 'endsWith'): boolean {
  const bytes = byteNeedle(x);
  if (op === 'includes') return bytes ? bytesContains(s, x) : s.includes(x);
  if (op === 'startsWith') return bytes ? bytesStartsWith(s, x) : s.startsWith(x);
  return bytes ? bytesEndsWith(s, x) : s.endsWith(x);
}

/**
 * Go's strings.ToUpper / ToLower: each character mapped on its own by
 * Unicode's simple case mapping. JS's full mapping differs: it lowers a final
 * Σ to ς, expands ß to SS, ﬀ to FF and İ to i + a combining dot; Go keeps ß
 * and ﬀ, lowers İ to i and every Σ to σ.
 */
export function goCase(s: string, upper: boolean): string {
  if (ASCII.test(s)) return upper ? s.toUpperCase() : s.toLowerCase();
  let out = '';
  // strings.Map writes an invalid byte as U+FFFD.
  for (const ch of validUTF8(s)) {
    const m = upper ? ch.toUpperCase() : ch.toLowerCase();
    if (m.length === ch.length || [...m].length === 1) out += m;
    else if (ch === '\u0130') out += 'i';
    else out += ch;
  }
  return out;
}
