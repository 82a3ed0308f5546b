/**
 * Glob builtins: glob.match and glob.quote_meta, with the pattern syntax of
 * github.com/gobwas/glob as OPA uses it:
 *
 * - `*` matches any run of characters except the delimiters, `**` any run at
 *   all, `?` one character that is not a delimiter;
 * - `[abc]`, `[a-z]` and their negations `[!abc]`, `[!a-z]` match one
 *   character (delimiters included);
 * - `{a,b*,c}` matches any of the alternatives (an alternative may be empty);
 * - `\` makes the next character literal.
 *
 * Delimiters: `null` means none, `[]` means the default `["."]`.
 *
 * A pattern is parsed with gobwas' lexer rules (so malformed patterns fail
 * with its messages, e.g. `glob: syntax error at 4: unclosed `{``, the offset
 * counted in UTF-8 bytes) and then translated to an anchored RE2 program, so
 * matching takes linear time. Compiled patterns are kept in the per-query cache.
 */
import { RE2JS } from 're2js';
import type { Value } from '../value.js';
import { asString, BuiltinError, type BuiltinDefinition, operandElementError, operandTypeError } from './registry.js';

type Token =
  | { t: 'eof' | 'any' | 'super' | 'single' | 'not' | 'sep' | 'rangeOpen' | 'rangeClose' | 'between' | 'termsOpen' | 'termsClose' }
  | { t: 'text' | 'lo' | 'hi'; data: string };

const EOF = -1;
const TEXT_BREAKERS = ['?', '*', '[', '{'];
const TERMS_BREAKERS = [...TEXT_BREAKERS, '}', ','];

class GlobSyntaxError extends Error {
  constructor(offset: number, reason: string) {
    super(`glob: syntax error at ${offset}: ${reason}`);
  }
}

/** gobwas/glob's lexer: tokens are produced a construct at a time; an error stops it. */
class Lexer {
  private readonly runes: number[];
  /** UTF-8 byte offset of each rune, plus the total at the end. */
  private readonly offsets: number[];
  private pos = 0;
  private lastSize = 0;
  private termsLevel = 0;
  private readonly queue: Token[] = [];
  private error: string | null = null;

  constructor(source: string) {
    this.runes = Array.from(source, (c) => c.codePointAt(0) as number);
    this.offsets = [0];
    let off = 0;
    for (const r of this.runes) {
      off += r < 0x80 || (r >= 0xdc80 && r <= 0xdcff) ? 1 : r < 0x800 ? 2 : r < 0x10000 ? 3 : 4;
      this.offsets.push(off);
    }
  }

  /** Byte offset right after the most recently lexed construct. */
  offset(): number {
    return this.offsets[this.pos] as number;
  }

  next(): Token {
    for (;;) {
      if (this.error !== null) throw new GlobSyntaxError(this.offset(), this.error);
      const t = this.queue.shift();
      if (t !== undefined) return t;
      this.fetch();
    }
  }

  private read(): number {
    if (this.pos >= this.runes.length) {
      this.lastSize = 0;
      return EOF;
    }
    const r = this.runes[this.pos] as number;
    // gobwas/glob stops at utf8.RuneError: U+FFFD itself or a raw byte (go-bytes.ts).
    if (r === 0xfffd || (r >= 0xdc80 && r <= 0xdcff)) {
      this.error = 'could not read rune';
      this.lastSize = 0;
      return EOF;
    }
    this.pos++;
    this.lastSize = 1;
    return r;
  }

  private unread(): void {
    this.pos -= this.lastSize;
  }

  private peek(): number {
    return this.pos < this.runes.length ? (this.runes[this.pos] as number) : EOF;
  }

  private fetch(): void {
    const r = this.read();
    const c = r === EOF ? '' : String.fromCodePoint(r);
    if (r === EOF) this.queue.push({ t: 'eof' });
    else if (c === '{') {
      this.termsLevel++;
      this.queue.push({ t: 'termsOpen' });
    } else if (c === ',' && this.termsLevel > 0) this.queue.push({ t: 'sep' });
    else if (c === '}' && this.termsLevel > 0) {
      this.queue.push({ t: 'termsClose' });
      this.termsLevel--;
    } else if (c === '[') {
      this.queue.push({ t: 'rangeOpen' });
      this.fetchRange();
    } else if (c === '?') this.queue.push({ t: 'single' });
    else if (c === '*') {
      if (this.read() === 0x2a) this.queue.push({ t: 'super' });
      else {
        this.unread();
        this.queue.push({ t: 'any' });
      }
    } else {
      this.unread();
      this.fetchText(this.termsLevel > 0 ? TERMS_BREAKERS : TEXT_BREAKERS);
    }
  }

  private fetchRange(): void {
    let wantHi = false;
    let wantClose = false;
    let seenNot = false;
    for (;;) {
      const r = this.read();
      if (r === EOF) {
        this.error = 'unexpected end of input';
        return;
      }
      const c = String.fromCodePoint(r);
      if (wantClose) {
        if (c !== ']') this.error = 'expected close range character';
        else this.queue.push({ t: 'rangeClose' });
        return;
      }
      if (wantHi) {
        this.queue.push({ t: 'hi', data: c });
        wantClose = true;
      } else if (!seenNot && c === '!') {
        this.queue.push({ t: 'not' });
        seenNot = true;
      } else if (this.peek() === 0x2d) {
        this.pos++;
        this.queue.push({ t: 'lo', data: c }, { t: 'between' });
        wantHi = true;
      } else {
        this.unread();
        this.fetchText([']']);
        wantClose = true;
      }
    }
  }

  private fetchText(breakers: readonly string[]): void {
    let data = '';
    let escaped = false;
    for (;;) {
      const r = this.read();
      if (r === EOF) {
        if (escaped) this.error = 'trailing backslash';
        break;
      }
      const c = String.fromCodePoint(r);
      if (!escaped) {
        if (c === '\\') {
          escaped = true;
          continue;
        }
        if (breakers.includes(c)) {
          this.unread();
          break;
        }
      }
      escaped = false;
      data += c;
    }
    if (data !== '') this.queue.push({ t: 'text', data });
  }
}

/** `\x{...}` for one code point, safe inside and outside a character class. */
function hexRune(c: string): string {
  return `\\x{${(c.codePointAt(0) as number).toString(16)}}`;
}

function literal(text: string): string {
  return Array.from(text, (c) => (/[0-9A-Za-z_ ]/.test(c) ? c : hexRune(c))).join('');
}

/** One character class from a `[...]` construct; the lexer has read the `[`. */
function parseRange(lex: Lexer): string {
  let not = false;
  let lo: string | null = null;
  let hi: string | null = null;
  let chars: string | null = null;
  for (;;) {
    const tok = lex.next();
    switch (tok.t) {
      case 'eof':
        throw new GlobSyntaxError(lex.offset(), 'unclosed `[`');
      case 'not':
        not = true;
        break;
      case 'lo':
        lo = tok.data;
        break;
      case 'hi':
        hi = tok.data;
        if (lo !== null && (hi.codePointAt(0) as number) < (lo.codePointAt(0) as number)) {
          throw new GlobSyntaxError(lex.offset(), 'range hi character is less than lo');
        }
        break;
      case 'text':
        chars = tok.data;
        break;
      case 'rangeClose': {
        const isRange = lo !== null && hi !== null;
        if ((chars !== null) === isRange) throw new GlobSyntaxError(lex.offset(), 'could not parse range');
        const body = isRange ? `${hexRune(lo as string)}-${hexRune(hi as string)}` : Array.from(chars as string, hexRune).join('');
        return `[${not ? '^' : ''}${body}]`;
      }
      default:
        break;
    }
  }
}

/** Translates a glob to an anchored RE2 pattern; throws {@link GlobSyntaxError}. */
export function globToRegex(pattern: string, delimiters: readonly string[]): string {
  const notDelim = delimiters.length === 0 ? '(?s:.)' : `[^${delimiters.map(hexRune).join('')}]`;
  const lex = new Lexer(pattern);
  // Each open `{` holds its finished alternatives and the one being read.
  const groups: Array<{ alts: string[]; cur: string }> = [];
  let cur = '';
  for (;;) {
    const tok = lex.next();
    switch (tok.t) {
      case 'eof':
        if (groups.length > 0) throw new GlobSyntaxError(lex.offset(), 'unclosed `{`');
        return `\\A(?:${cur})\\z`;
      case 'text':
        cur += literal(tok.data);
        break;
      case 'single':
        cur += notDelim;
        break;
      case 'any':
        cur += `${notDelim}*`;
        break;
      case 'super':
        cur += '(?s:.)*';
        break;
      case 'rangeOpen':
        cur += parseRange(lex);
        break;
      case 'termsOpen':
        groups.push({ alts: [], cur });
        cur = '';
        break;
      case 'sep': {
        const g = groups[groups.length - 1];
        if (g === undefined) throw new GlobSyntaxError(lex.offset(), 'unexpected `,`');
        g.alts.push(cur);
        cur = '';
        break;
      }
      case 'termsClose': {
        const g = groups.pop();
        if (g === undefined) throw new GlobSyntaxError(lex.offset(), 'unexpected `}`');
        g.alts.push(cur);
        cur = `${g.cur}(?:${g.alts.join('|')})`;
        break;
      }
      default:
        throw new GlobSyntaxError(lex.offset(), `unexpected token ${tok.t}`);
    }
  }
}

/** gobwas/glob's `QuoteMeta`: escapes `* ? \ [ ] { }`. */
export function quoteGlobMeta(s: string): string {
  return s.replace(/[*?\\[\]{}]/g, '\\$&');
}

function delimitersOf(v: Value | undefined): string[] {
  if (v === null) return [];
  if (!Array.isArray(v)) throw operandTypeError(2, v ?? null, 'array', 'null');
  const out = v.map((d) => {
    if (typeof d !== 'string') throw operandElementError(2, v, d, 'string');
    if (Array.from(d).length !== 1) throw operandElementError(2, v, d, 'rune');
    return d;
  });
  return out.length === 0 ? ['.'] : out;
}

export const globBuiltins: BuiltinDefinition[] = [
  {
    name: 'glob.match',
    args: ['string', 'any', 'string'],
    result: 'boolean',
    impl: ([p, d, m], ctx) => {
      const pattern = asString(p, 1);
      const delimiters = delimitersOf(d);
      const subject = asString(m, 3);
      const key = `glob:${delimiters.join('')}\u0000${pattern}`;
      let re = ctx.cache.get(key);
      if (!(re instanceof RE2JS)) {
        try {
          re = RE2JS.compile(globToRegex(pattern, delimiters));
        } catch (e) {
          throw new BuiltinError(e instanceof Error ? e.message : String(e));
        }
        ctx.cache.set(key, re);
      }
      return (re as RE2JS).test(subject);
    },
  },
  {
    name: 'glob.quote_meta',
    args: ['string'],
    result: 'string',
    impl: ([p]) => quoteGlobMeta(asString(p, 1)),
  },
];
