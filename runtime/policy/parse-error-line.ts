/**
 * The two lines OPA prints under a parse error: the source line holding the
 * offending byte and a caret under it. As OPA does, the caret steps back
 * over whitespace to the last visible byte before the error (so an error at
 * the end of the text points at its last character), leading tabs are
 * dropped from the line, and columns count UTF-8 bytes.
 */

/** Bytes Go's `unicode.IsSpace(rune(b))` takes for space: tab, newline, vertical tab, form feed, return, space, 0x85, 0xA0. */
function isSpace(b: number): boolean {
  return (b >= 9 && b <= 13) || b === 32 || b === 0x85 || b === 0xa0;
}

const isNewline = (b: number): boolean => b === 10 || b === 13;

/**
 * OPA's `ParserErrorDetail`: the source line holding the byte an error
 * points at, whole (leading tabs kept), and that byte's index in it (bytes
 * of UTF-8). It is the `details` object of a parse error in OPA's JSON.
 */
export interface ParserErrorDetail {
  line: string;
  idx: number;
}

/** The detail of a parse error at `offset` (a UTF-16 index into `source`). */
export function parserErrorDetail(source: string, offset: number): ParserErrorDetail {
  const bytes = Buffer.from(source, 'utf8');
  if (bytes.length === 0) return { line: '', idx: 0 };
  let at = Buffer.byteLength(source.slice(0, Math.max(0, offset)), 'utf8');
  if (at >= bytes.length) at = bytes.length - 1;
  while (at > 0 && isSpace(bytes[at] as number)) at--;
  let begin = at;
  while (begin > 0 && !isNewline(bytes[begin] as number)) begin--;
  if (isNewline(bytes[begin] as number)) begin++;
  let end = at;
  while (end < bytes.length && !isNewline(bytes[end] as number)) end++;
  if (begin > end) begin = end;
  return { line: bytes.subarray(begin, end).toString('utf8'), idx: at - begin };
}

/** The two lines printed under the error: the line without its leading tabs, and a caret under the byte. */
export function parserErrorLines(detail: ParserErrorDetail): string[] {
  const line = detail.line.replace(/^\t+/, '');
  const indent = Math.max(0, detail.idx - (detail.line.length - line.length));
  return [line, ' '.repeat(indent) + '^'];
}
