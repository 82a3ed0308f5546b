/**
 * Renders values in Rego syntax, as OPA's `Term.String()` does (used by
 * `sprintf`'s `%v` on composites, `print`, and error messages).
 */
import { RegoDecimal, RegoSet, type Value } from './value.js';

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
  switch (typeof v) {
    case 'string':
      return goQuote(v);
    case 'number':
    case 'bigint':
      return formatNumber(v);
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      if (v === null) return 'null';
      if (v instanceof RegoDecimal) return v.toString();
      if (Array.isArray(v)) return '[' + v.map(formatValue).join(', ') + ']';
      if (v instanceof RegoSet) {
        if (v.size === 0) return 'set()';
        return '{' + v.values().map(formatValue).join(', ') + '}';
      }
      return (
        '{' +
        v
          .entries()
          .map(([k, x]) => formatValue(k) + ': ' + formatValue(x))
          .join(', ') +
        '}'
      );
  }
}
