/**
 * Go strings that are not UTF-8, held in JS strings.
 *
 * A Go string is bytes; OPA's builtins that decode bytes (`base64.decode`,
 * `hex.decode`, `urlquery.decode`, `uri.parse`, ...) keep a byte that is not
 * part of valid UTF-8 as it is, and it goes back out raw (`base64.encode`,
 * `crypto.sha256`, `sprintf("%s")`), compares as a byte (after every valid
 * character: `"\xff" > "\U0010ffff"`) and is another string than U+FFFD.
 *
 * Here such a byte b (0x80-0xFF: bytes below 0x80 are always valid) is held
 * as the lone low surrogate U+DC00+b, as Python's "surrogateescape" does.
 * No other path makes a lone surrogate: JSON text (input, data, bundles,
 * `json.unmarshal`), Rego string literals and YAML turn an unpaired
 * surrogate escape into U+FFFD as Go does ({@link wellFormed}), so a client
 * cannot write a raw byte that a decoder did not make.
 *
 * Where Go writes text out as UTF-8 (encoding/json: results, the data API,
 * decision logs, `json.marshal`) each raw byte is U+FFFD ({@link validUTF8},
 * {@link jsonQuote}); where it writes bytes (`base64.encode`, hashes, URL
 * escapes) the byte itself ({@link goBytes}).
 */

// ES2024's well-formedness methods (Node 20 has them; the project's TypeScript lib is ES2023). Native
// scans, cheaper than a regular expression: every string of the common path is well formed and stops there.
interface WellFormed {
  isWellFormed(): boolean;
  toWellFormed(): string;
}
/** True when the string holds no unpaired surrogate (so no raw byte either). */
export const isWellFormed = (s: string): boolean => (s as unknown as WellFormed).isWellFormed();

/** A raw byte (U+DC80-U+DCFF not paired with a high surrogate). */
const RAW = /[\udc80-\udcff]/u;
const RAW_ALL = /[\udc80-\udcff]/gu;

/** True when the string holds a byte that is not UTF-8. */
export const hasRawBytes = (s: string): boolean => !isWellFormed(s) && RAW.test(s);

/** True for the code unit of a raw byte (the caller checks it is not the low half of a pair). */
export const isRawUnit = (c: number): boolean => c >= 0xdc80 && c <= 0xdcff;

/** The string as every input path must give it: unpaired surrogates as U+FFFD, as Go decodes `"\udcff"`. */
export const wellFormed = (s: string): string => (isWellFormed(s) ? s : (s as unknown as WellFormed).toWellFormed());

/** Each raw byte as U+FFFD: what Go's encoding/json and `strings.ToValidUTF8`-like writers print. */
export const validUTF8 = (s: string): string => (isWellFormed(s) ? s : s.replace(RAW_ALL, '\ufffd'));

/** A string as a JSON string literal, as Go's encoding/json writes it: a raw byte is `\ufffd`. */
export function jsonQuote(s: string): string {
  const q = JSON.stringify(s);
  // JSON.stringify writes a lone surrogate as `\udcXX`; only then can the string hold a raw byte.
  if (!q.includes('\\udc') || !hasRawBytes(s)) return q;
  return (
    '"' +
    s
      .split(RAW_ALL)
      .map((p) => JSON.stringify(p).slice(1, -1))
      .join('\\ufffd') +
    '"'
  );
}

/** The code point of the UTF-8 sequence at `i`, or -1 where Go's `utf8.DecodeRune` finds an invalid byte (width 1). */
export function decodeRune(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i] as number;
  if (b0 < 0x80) return b0;
  const n = b0 >= 0xf0 ? 4 : b0 >= 0xe0 ? 3 : b0 >= 0xc0 ? 2 : 0;
  let cp = n === 4 ? b0 & 0x07 : n === 3 ? b0 & 0x0f : b0 & 0x1f;
  if (n === 0 || b0 > 0xf4 || b0 < 0xc2 || i + n > bytes.length) return -1;
  for (let k = 1; k < n; k++) {
    const b = bytes[i + k] as number;
    if ((b & 0xc0) !== 0x80) return -1;
    cp = (cp << 6) | (b & 0x3f);
  }
  if ((n === 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n === 4 && (cp < 0x10000 || cp > 0x10ffff))) return -1;
  return cp;
}

/** Bytes the rune at hand takes; an invalid byte (-1) takes one. */
export const runeWidth = (cp: number): number => (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);

/** Bytes as a Go string: valid UTF-8 decoded, each byte of an invalid sequence kept as a raw byte. */
export function stringFromBytes(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    if ((bytes[i] as number) < 0x80) {
      // Copy the ASCII run in one go (not by spreading it into arguments: a long run overflows the stack).
      let j = i + 1;
      while (j < bytes.length && (bytes[j] as number) < 0x80) j++;
      out += Buffer.from(bytes.buffer, bytes.byteOffset + i, j - i).toString('latin1');
      i = j;
      continue;
    }
    const cp = decodeRune(bytes, i);
    out += cp < 0 ? String.fromCharCode(0xdc00 + (bytes[i] as number)) : String.fromCodePoint(cp);
    i += runeWidth(cp);
  }
  return out;
}

/** A Go string's bytes: UTF-8, each raw byte as itself. */
export function goBytes(s: string): Buffer {
  if (!hasRawBytes(s)) return Buffer.from(s, 'utf8');
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isRawUnit(c) || (i > 0 && isHighSurrogate(s.charCodeAt(i - 1)))) continue;
    if (i > from) parts.push(Buffer.from(s.slice(from, i), 'utf8'));
    parts.push(Buffer.of(c - 0xdc00));
    from = i + 1;
  }
  if (from < s.length) parts.push(Buffer.from(s.slice(from), 'utf8'));
  return Buffer.concat(parts);
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;

/**
 * A string joined from others as Go would hold it: raw bytes that now make
 * valid UTF-8 together (`"\xe6" + "\x97\xa5"` is `"日"`) become that character.
 * Free for strings without raw bytes.
 */
export const joined = (s: string): string => (hasRawBytes(s) ? stringFromBytes(goBytes(s)) : s);

/**
 * JSON text made by JSON.stringify, with each raw byte (which it writes as
 * `\udcXX`) as Go writes it: `\ufffd`. A `\u` escape there is one only after
 * an even run of backslashes (`\\udc80` is a backslash, then text).
 */
export const goJSONText = (text: string): string => (text.includes('\\udc') ? text.replace(/(?<!\\)((?:\\\\)*)\\udc[89a-f][0-9a-f]/g, '$1\\ufffd') : text);
