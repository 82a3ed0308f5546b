/**
 * Rego tokenizer. Produces the whole token list up front; each token records
 * whether whitespace preceded it (refs and calls must be adjacent: `a.b[c](d)`)
 * and its 1-based row/column.
 */
import { scanTemplate } from './lexer-template.js';
import { wellFormed } from './go-bytes.js';

/** `illegal`: text the scanner could not read (its `text` is the scanner's error, or empty); the token list ends after it. */
export type TokenKind = 'ident' | 'number' | 'string' | 'template' | 'op' | 'illegal' | 'eof';

/** A part of a template string `$"a {expr} b"`: literal text or expression source with its position. */
export type TemplatePart = { lit: string } | { expr: string; row: number; col: number };

export interface Token {
  kind: TokenKind;
  /** Identifier name, operator text, number text, or decoded string value. */
  text: string;
  /** For strings: true when written with backticks. */
  raw?: boolean;
  /** For template strings: literal and expression parts. */
  parts?: TemplatePart[];
  /** Whitespace or a comment came right before this token. */
  space: boolean;
  /** A newline came between the previous token and this one. */
  newline: boolean;
  offset: number;
  /** Offset just past the token's last character. */
  end: number;
  row: number;
  col: number;
}

/** A `#` comment: its text (with the `#`) and where it starts. Collected only when asked for. */
export interface Comment {
  text: string;
  offset: number;
  row: number;
  col: number;
}

export interface TokenizeOptions {
  /** When given, comments are appended here (the formatter needs them; evaluation does not). */
  comments?: Comment[];
}

const TWO_CHAR_OPS = new Set([':=', '==', '!=', '<=', '>=']);
const ONE_CHAR_OPS = new Set(['=', '<', '>', '+', '-', '*', '/', '%', '&', '|', '(', ')', '[', ']', '{', '}', '.', ',', ';', ':']);

function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function tokenize(text: string, _file: string, options: TokenizeOptions = {}): Token[] {
  // Go reads source as UTF-8: no lone surrogate (a raw byte here, see go-bytes.ts) can be in it. Same length.
  const src = wellFormed(text);
  const comments = options.comments;
  const tokens: Token[] = [];
  let pos = 0;
  let row = 1;
  let lineStart = 0;
  const n = src.length;

  // Columns count code points, as OPA's scanner counts runes (a character beyond the BMP is one column, not two).
  let colLine = 0;
  let colPos = 0;
  let pairs = 0;
  const colAt = (p: number): number => {
    if (colLine !== lineStart || p < colPos) {
      colLine = lineStart;
      colPos = lineStart;
      pairs = 0;
    }
    for (; colPos < p; colPos++) {
      const c = src.charCodeAt(colPos);
      if (c >= 0xdc00 && c <= 0xdfff) pairs++;
    }
    return p - lineStart - pairs + 1;
  };

  // Where the token being read starts: a scanner error is reported there (as OPA's scanner does).
  let tokStart = { offset: 0, row: 1, col: 1, space: false, newline: false };
  const fail = (msg: string, ..._at: unknown[]): never => {
    throw new ScanError(msg);
  };

  try {
    return scan();
  } catch (e) {
    if (!(e instanceof ScanError)) throw e;
    const at = { ...tokStart, end: tokStart.offset + 1 };
    tokens.push({ kind: 'illegal', text: e.message, ...at });
    tokens.push({ kind: 'eof', text: '', space: false, newline: false, offset: src.length, end: src.length, row: at.row, col: at.col });
    return tokens;
  }

  function scan(): Token[] {
    while (true) {
      const last = tokens[tokens.length - 1];
      if (last !== undefined && last.end < 0) last.end = pos;
      let space = pos === 0;
      let newline = false;
      // Skip whitespace and comments.
      while (pos < n) {
        const c = src.charCodeAt(pos);
        if (c === 10) {
          pos++;
          row++;
          lineStart = pos;
          space = true;
          newline = true;
        } else if (c === 32 || c === 9 || c === 13) {
          pos++;
          space = true;
        } else if (c === 35) {
          const at = pos;
          while (pos < n && src.charCodeAt(pos) !== 10) pos++;
          comments?.push({ text: src.slice(at, pos), offset: at, row, col: colAt(at) });
          space = true;
        } else break;
      }
      const col = colAt(pos);
      tokStart = { offset: pos, row, col, space, newline };
      if (pos >= n) {
        // OPA's end of text is at the column of the last character read (0 after a final newline).
        tokens.push({ kind: 'eof', text: '', space, newline, offset: pos, end: pos, row, col: col - 1 });
        return tokens;
      }
      const start = pos;
      const c = src.charCodeAt(pos);
      const base = { space, newline, offset: start, end: -1, row, col };

      if (isIdentStart(c)) {
        pos++;
        while (pos < n) {
          const d = src.charCodeAt(pos);
          if (isIdentStart(d) || isDigit(d)) pos++;
          else break;
        }
        tokens.push({ kind: 'ident', text: src.slice(start, pos), ...base });
        continue;
      }

      const next = pos + 1 < n ? src.charCodeAt(pos + 1) : -1;
      const prev = tokens[tokens.length - 1];
      const dotNumber =
        c === 46 &&
        isDigit(next) &&
        (prev === undefined || prev.kind === 'op' || space) &&
        !(prev !== undefined && !space && (prev.text === ']' || prev.text === ')' || prev.text === '}'));
      if (isDigit(c) || dotNumber) {
        if (c !== 46) while (pos < n && isDigit(src.charCodeAt(pos))) pos++;
        if (pos < n && src.charCodeAt(pos) === 46 && isDigit(pos + 1 < n ? src.charCodeAt(pos + 1) : -1)) {
          pos++;
          while (pos < n && isDigit(src.charCodeAt(pos))) pos++;
        }
        if (pos < n && (src.charCodeAt(pos) | 32) === 101) {
          const save = pos;
          pos++;
          if (pos < n && (src.charCodeAt(pos) === 43 || src.charCodeAt(pos) === 45)) pos++;
          if (pos < n && isDigit(src.charCodeAt(pos))) {
            while (pos < n && isDigit(src.charCodeAt(pos))) pos++;
          } else {
            pos = save;
            fail('expected exponent', pos);
          }
        }
        if (pos < n && isIdentStart(src.charCodeAt(pos))) fail('illegal number format', start);
        let text = src.slice(start, pos);
        if (text.startsWith('.')) text = '0' + text;
        tokens.push({ kind: 'number', text, ...base });
        continue;
      }

      if (c === 36 && (next === 34 || next === 96)) {
        // Template string: $"...{expr}..." or $`...{expr}...`.
        const scan = scanTemplate(src, pos, (msg, at) => fail(msg, at));
        const parts: TemplatePart[] = scan.parts.map((p) => {
          if ('lit' in p) return p;
          const before = src.slice(0, p.offset);
          const nl = before.lastIndexOf('\n');
          return { expr: p.expr, row: before.split('\n').length, col: p.offset - nl };
        });
        for (let j = pos; j < scan.end; j++) {
          if (src.charCodeAt(j) === 10) {
            row++;
            lineStart = j + 1;
          }
        }
        pos = scan.end;
        tokens.push({ kind: 'template', text: '', parts, raw: src.charCodeAt(start + 1) === 96, ...base });
        continue;
      }

      if (c === 34) {
        // Double-quoted string with JSON escapes.
        pos++;
        let out = '';
        let chunk = pos;
        for (;;) {
          if (pos >= n) fail('non-terminated string', start, base.row, lineStart);
          const d = src.charCodeAt(pos);
          if (d === 10) fail('non-terminated string', start, base.row, lineStart);
          if (d === 34) {
            out += src.slice(chunk, pos);
            pos++;
            break;
          }
          if (d === 92) {
            out += src.slice(chunk, pos);
            const e = src[pos + 1];
            switch (e) {
              case '"':
                out += '"';
                break;
              case '\\':
                out += '\\';
                break;
              case '/':
                out += '/';
                break;
              case 'b':
                out += '\b';
                break;
              case 'f':
                out += '\f';
                break;
              case 'n':
                out += '\n';
                break;
              case 'r':
                out += '\r';
                break;
              case 't':
                out += '\t';
                break;
              case 'u': {
                const hex = src.slice(pos + 2, pos + 6);
                if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('illegal escape sequence', pos);
                out += String.fromCharCode(parseInt(hex, 16));
                pos += 4;
                break;
              }
              default:
                fail('illegal escape sequence', pos);
            }
            pos += 2;
            chunk = pos;
            continue;
          }
          pos++;
        }
        // OPA reads the literal with encoding/json: an unpaired `\udcff` is U+FFFD.
        tokens.push({ kind: 'string', text: wellFormed(out), ...base });
        continue;
      }

      if (c === 96) {
        // Raw string: no escapes, may span lines.
        pos++;
        const s = pos;
        while (pos < n && src.charCodeAt(pos) !== 96) {
          if (src.charCodeAt(pos) === 10) {
            row++;
            lineStart = pos + 1;
          }
          pos++;
        }
        if (pos >= n) fail('non-terminated string', start);
        tokens.push({ kind: 'string', text: src.slice(s, pos), raw: true, ...base });
        pos++;
        continue;
      }

      const two = src.slice(pos, pos + 2);
      if (TWO_CHAR_OPS.has(two)) {
        tokens.push({ kind: 'op', text: two, ...base });
        pos += 2;
        continue;
      }
      const one = src[pos] as string;
      if (ONE_CHAR_OPS.has(one)) {
        tokens.push({ kind: 'op', text: one, ...base });
        pos++;
        continue;
      }
      fail('', pos);
    }
  }
}

/** Stops the scan at text it cannot read. */
class ScanError extends Error {}
