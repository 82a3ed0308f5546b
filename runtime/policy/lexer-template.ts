/**
 * Scanning of template strings (string interpolation, OPA 1.12):
 * `$"text {expr} text"` with JSON escapes, and raw `` $`text {expr}` ``.
 * `\{` and `\}` write literal braces in both forms. Expressions may contain
 * strings and nested template strings.
 */

import { wellFormed } from './go-bytes.js';

/** A part of a template string: literal text or the source of an expression. */
export type TemplatePart = { lit: string } | { expr: string; offset: number };

export interface TemplateScan {
  parts: TemplatePart[];
  /** Offset just after the closing quote. */
  end: number;
}

const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** Skips a plain or raw string starting at `i` (its opening quote); returns the offset after it. */
function skipString(src: string, i: number): number {
  const quote = src[i];
  let j = i + 1;
  while (j < src.length && src[j] !== quote) {
    if (quote === '"' && src[j] === '\\') j++;
    j++;
  }
  return j + 1;
}

/** Skips an expression body starting after `{`; returns the offset of its closing `}`. */
function skipExpr(src: string, i: number, fail: (msg: string, at: number) => never): number {
  let depth = 1;
  let j = i;
  while (j < src.length) {
    const c = src[j];
    if (c === '$' && (src[j + 1] === '"' || src[j + 1] === '`')) {
      j = scanTemplate(src, j, fail).end;
      continue;
    }
    if (c === '"' || c === '`') {
      j = skipString(src, j);
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0) return j;
    }
    j++;
  }
  return fail('non-terminated template string expression', i - 1);
}

/** Scans the template string whose `$` is at `start`. */
export function scanTemplate(src: string, start: number, fail: (msg: string, at: number) => never): TemplateScan {
  const quote = src[start + 1] as string;
  const raw = quote === '`';
  const parts: TemplatePart[] = [];
  let lit = '';
  let i = start + 2;
  for (;;) {
    if (i >= src.length) return fail('non-terminated template string', start);
    const c = src[i] as string;
    if (c === quote) {
      i++;
      break;
    }
    if (c === '\n' && !raw) return fail('non-terminated template string', start);
    if (c === '\\') {
      const e = src[i + 1];
      if (e === '{' || e === '}') {
        lit += e;
        i += 2;
        continue;
      }
      if (!raw) {
        if (e !== undefined && ESCAPES[e] !== undefined) {
          lit += ESCAPES[e];
          i += 2;
          continue;
        }
        if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(src.slice(i + 2, i + 6))) {
          lit += String.fromCharCode(parseInt(src.slice(i + 2, i + 6), 16));
          i += 6;
          continue;
        }
        return fail('illegal escape sequence', i);
      }
    }
    if (c === '{') {
      if (lit !== '') parts.push({ lit: wellFormed(lit) });
      lit = '';
      const close = skipExpr(src, i + 1, fail);
      parts.push({ expr: src.slice(i + 1, close), offset: i + 1 });
      i = close + 1;
      continue;
    }
    lit += c;
    i++;
  }
  if (lit !== '' || parts.length === 0) parts.push({ lit: wellFormed(lit) });
  return { parts, end: i };
}
