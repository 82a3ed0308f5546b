/**
 * Renders values in Rego syntax, as OPA's `Term.String()` does (used by
 * `sprintf`'s `%v` on composites, `print`, and error messages).
 */
import { foldDeep, SHALLOW } from './deep-fold.js';
import { RegoDecimal, RegoObject, RegoSet, type Value } from './value.js';

/** Quotes a string as Go's `strconv.Quote` does. */
export function goQuote(s: string, ascii = false): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    switch (c) {
      case 0x07:
        out += '\\a';
        continue;
      case 0x08:
        out += '\\b';
        continue;
      case 0x0c:
        out += '\\f';
        continue;
      case 0x0a:
        out += '\\n';
        continue;
      case 0x0d:
        out += '\\r';
        continue;
      case 0x09:
        out += '\\t';
        continue;
      case 0x0b:
        out += '\\v';
        continue;
      case 0x22:
        out += '\\"';
        continue;
      case 0x5c:
        out += '\\\\';
        continue;
    }
    if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    // A raw byte (go-bytes.ts) as Go quotes a byte that is not UTF-8; no other lone surrogate reaches here.
    else if (c >= 0xdc80 && c <= 0xdcff) out += '\\x' + (c - 0xdc00).toString(16);
    else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd';
    else if (!isPrintable(c) || (ascii && c > 0x7e)) {
      out += c > 0xffff ? '\\U' + c.toString(16).padStart(8, '0') : '\\u' + c.toString(16).padStart(4, '0');
    } else out += ch;
  }
  return out + '"';
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** Go's strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space (not U+00A0 or other spaces). */
function isPrintable(c: number): boolean {
  if (c < 0x7f) return c >= 0x20;
  return PRINTABLE.test(String.fromCodePoint(c));
}

/** Formats a number the way OPA prints `ast.Number` (integers exactly, floats shortest). */
export function formatNumber(n: number | bigint | RegoDecimal): string {
  if (typeof n === 'bigint' || n instanceof RegoDecimal) return n.toString();
  if (Number.isInteger(n)) return n.toString();
  const s = String(n);
  // JS uses "1e-7" / "1e+21"; OPA numbers written by big.Float use the same shape (e-07 in Go).
  return s;
}

/** Rego source text of a value, e.g. `{"a": [1, 2], "b": {1}}`. */
export function formatValue(v: Value): string {
  return formatAt(v, 0);
}

function formatAt(v: Value, depth: number): string {
  switch (typeof v) {
    case 'string':
      return goQuote(v);
    case 'number':
    case 'bigint':
      return formatNumber(v);
    case 'boolean':
      return v ? 'true' : 'false';
    default: {
      if (v === null) return 'null';
      if (v instanceof RegoDecimal) return v.toString();
      if (depth >= SHALLOW) return formatDeep(v);
      const parts = formatParts(v) as readonly Value[];
      const texts: string[] = new Array(parts.length);
      for (let i = 0; i < parts.length; i++) texts[i] = formatAt(parts[i] as Value, depth + 1);
      return formatClose(v, texts);
    }
  }
}

/** What a composite's text is made of: elements, sorted members, or sorted keys each followed by its value. */
function formatParts(v: Value): readonly Value[] | undefined {
  if (Array.isArray(v)) return v;
  if (v instanceof RegoSet) return v.values();
  if (v instanceof RegoObject) return v.entries().flat(1);
  return undefined;
}

function formatClose(v: Value, texts: string[]): string {
  if (Array.isArray(v)) return '[' + texts.join(', ') + ']';
  if (v instanceof RegoSet) return texts.length === 0 ? 'set()' : '{' + texts.join(', ') + '}';
  const pairs: string[] = new Array(texts.length / 2);
  for (let i = 0; i < pairs.length; i++) pairs[i] = (texts[2 * i] as string) + ': ' + (texts[2 * i + 1] as string);
  return '{' + pairs.join(', ') + '}';
}

/** {@link formatValue} folded on an explicit stack (values nested past {@link SHALLOW}). */
function formatDeep(root: Value): string {
  return foldDeep<Value, string>(root, { open: formatParts, leaf: (v) => formatAt(v, 0), close: (v, _parts, texts) => formatClose(v, texts) });
}
