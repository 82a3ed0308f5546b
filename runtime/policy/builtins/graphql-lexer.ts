/**
 * GraphQL lexer with the behaviour of gqlparser (the Go library OPA's
 * graphql.* builtins use): the same token kinds, the same token text in error
 * messages (`Name "foo"`, `<EOF>`, `{`), and positions counted in Unicode code
 * points with 1-based lines and columns. Comments are skipped.
 */
import { goQuote } from '../value-format.js';

export type TokenKind =
  | 'Invalid'
  | 'EOF'
  | 'Bang'
  | 'Dollar'
  | 'Amp'
  | 'ParenL'
  | 'ParenR'
  | 'Spread'
  | 'Colon'
  | 'Equals'
  | 'At'
  | 'BracketL'
  | 'BracketR'
  | 'BraceL'
  | 'BraceR'
  | 'Pipe'
  | 'Name'
  | 'Int'
  | 'Float'
  | 'String'
  | 'BlockString';

/** How gqlparser prints a token kind in messages. */
const KIND_TEXT: Record<TokenKind, string> = {
  Invalid: '<Invalid>',
  EOF: '<EOF>',
  Bang: '!',
  Dollar: '$',
  Amp: '&',
  ParenL: '(',
  ParenR: ')',
  Spread: '...',
  Colon: ':',
  Equals: '=',
  At: '@',
  BracketL: '[',
  BracketR: ']',
  BraceL: '{',
  BraceR: '}',
  Pipe: '|',
  Name: 'Name',
  Int: 'Int',
  Float: 'Float',
  String: 'String',
  BlockString: 'BlockString',
};

export function kindText(kind: TokenKind): string {
  return KIND_TEXT[kind];
}

export interface Token {
  readonly kind: TokenKind;
  readonly value: string;
  readonly line: number;
  readonly column: number;
}

/** `Name "foo"` for a token with text, else the kind alone (Go's `strconv.Quote` for the text). */
export function tokenText(t: Token): string {
  return t.value !== '' ? `${KIND_TEXT[t.kind]} ${goQuote(t.value)}` : KIND_TEXT[t.kind];
}

/** A lexing or parsing error at a 1-based line and column. */
export class GraphQLSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
    this.name = 'GraphQLSyntaxError';
  }
}

const isNameStart = (c: string | undefined): boolean => c !== undefined && /^[_A-Za-z]$/.test(c);
const isNameChar = (c: string | undefined): boolean => c !== undefined && /^[_A-Za-z0-9]$/.test(c);
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** Reads tokens one at a time; an error comes back with an `Invalid` token, as in gqlparser. */
export class Lexer {
  private readonly src: string[];
  private start = 0;
  private end = 0;
  private line = 1;
  private lineStart = 0;

  constructor(input: string) {
    this.src = Array.from(input);
  }

  private token(kind: TokenKind, value: string): Token {
    return { kind, value, line: this.line, column: this.start - this.lineStart + 1 };
  }

  private error(message: string): { token: Token; error: GraphQLSyntaxError } {
    const column = this.end - this.lineStart + 1;
    return {
      token: { kind: 'Invalid', value: '', line: this.line, column },
      error: new GraphQLSyntaxError(message, this.line, column),
    };
  }

  read(): { token: Token; error?: GraphQLSyntaxError } {
    this.ws();
    this.start = this.end;
    const src = this.src;
    if (this.end >= src.length) return { token: this.token('EOF', '') };
    const r = src[this.start] as string;
    this.end++;
    const single: Record<string, TokenKind> = {
      '!': 'Bang',
      $: 'Dollar',
      '&': 'Amp',
      '(': 'ParenL',
      ')': 'ParenR',
      ':': 'Colon',
      '=': 'Equals',
      '@': 'At',
      '[': 'BracketL',
      ']': 'BracketR',
      '{': 'BraceL',
      '}': 'BraceR',
      '|': 'Pipe',
    };
    const k = single[r];
    if (k !== undefined) return { token: this.token(k, '') };
    if (r === '.' && src[this.start + 1] === '.' && src[this.start + 2] === '.') {
      this.end += 2;
      return { token: this.token('Spread', '') };
    }
    if (isNameStart(r)) {
      while (isNameChar(src[this.end])) this.end++;
      return { token: this.token('Name', src.slice(this.start, this.end).join('')) };
    }
    if (r === '-' || isDigit(r)) return this.readNumber();
    if (r === '"') {
      if (src[this.start + 1] === '"' && src[this.start + 2] === '"') return this.readBlockString();
      return this.readString();
    }
    this.end--;
    const c = r.codePointAt(0) as number;
    if (c < 0x20 && r !== '\t' && r !== '\n' && r !== '\r') {
      return this.error(`Cannot contain the invalid character "\\u${c.toString(16).padStart(4, '0')}"`);
    }
    if (r === "'") return this.error(`Unexpected single quote character ('), did you mean to use a double quote (")?`);
    return this.error(`Cannot parse the unexpected character "${r}".`);
  }

  /** Skips white space, commas, a byte-order mark and comments. */
  private ws(): void {
    const src = this.src;
    while (this.end < src.length) {
      const c = src[this.end] as string;
      if (c === '\t' || c === ' ' || c === ',' || c === '\uFEFF') {
        this.end++;
      } else if (c === '\n') {
        this.end++;
        this.line++;
        this.lineStart = this.end;
      } else if (c === '\r') {
        this.end++;
        this.line++;
        this.lineStart = this.end;
        if (src[this.end] === '\n') this.end++;
      } else if (c === '#') {
        while (this.end < src.length) {
          const ch = src[this.end] as string;
          if ((ch.codePointAt(0) as number) > 0x1f || ch === '\t') this.end++;
          else break;
        }
      } else {
        return;
      }
    }
  }

  private describeNext(): string {
    const c = this.src[this.end];
    return c === undefined ? '<EOF>' : `"${c}"`;
  }

  private digits(): number {
    let n = 0;
    while (isDigit(this.src[this.end])) {
      this.end++;
      n++;
    }
    return n;
  }

  private readNumber(): { token: Token; error?: GraphQLSyntaxError } {
    let float = false;
    this.end--;
    if (this.src[this.end] === '-') this.end++;
    if (this.src[this.end] === '0') {
      this.end++;
      const consumed = this.digits();
      if (consumed !== 0) {
        this.end -= consumed;
        return this.error(`Invalid number, unexpected digit after 0: ${this.describeNext()}.`);
      }
    } else if (this.digits() === 0) {
      return this.error(`Invalid number, expected digit but got: ${this.describeNext()}.`);
    }
    if (this.src[this.end] === '.') {
      this.end++;
      float = true;
      if (this.digits() === 0) return this.error(`Invalid number, expected digit but got: ${this.describeNext()}.`);
    }
    if (this.src[this.end] === 'e' || this.src[this.end] === 'E') {
      this.end++;
      float = true;
      if (this.src[this.end] === '-' || this.src[this.end] === '+') this.end++;
      if (this.digits() === 0) return this.error(`Invalid number, expected digit but got: ${this.describeNext()}.`);
    }
    return { token: this.token(float ? 'Float' : 'Int', this.src.slice(this.start, this.end).join('')) };
  }

  private readString(): { token: Token; error?: GraphQLSyntaxError } {
    const src = this.src;
    this.start++;
    let buf = '';
    while (this.end < src.length) {
      const r = src[this.end] as string;
      if (r === '\n' || r === '\r') break;
      const c = r.codePointAt(0) as number;
      if (c < 0x20 && r !== '\t') return this.error(`Invalid character within String: "\\u${c.toString(16).padStart(4, '0')}".`);
      if (r === '"') {
        const t = this.token('String', buf);
        this.end++;
        return { token: t };
      }
      if (r !== '\\') {
        buf += r;
        this.end++;
        continue;
      }
      if (this.end + 1 >= src.length) {
        this.end++;
        return this.error('Invalid character escape sequence.');
      }
      const escape = src[this.end + 1] as string;
      if (escape === 'u') {
        if (this.end + 6 >= src.length) {
          this.end++;
          return this.error(`Invalid character escape sequence: \\${src.slice(this.end).join('')}.`);
        }
        const hex = src.slice(this.end + 2, this.end + 6).join('');
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
          this.end++;
          return this.error(`Invalid character escape sequence: \\${src.slice(this.end, this.end + 5).join('')}.`);
        }
        buf += String.fromCodePoint(parseInt(hex, 16));
        this.end += 6;
        continue;
      }
      const simple: Record<string, string> = { '"': '"', '/': '/', '\\': '\\', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      const e = simple[escape];
      if (e === undefined) {
        this.end++;
        return this.error(`Invalid character escape sequence: \\${escape}.`);
      }
      buf += e;
      this.end += 2;
    }
    return this.error('Unterminated string.');
  }

  private readBlockString(): { token: Token; error?: GraphQLSyntaxError } {
    const src = this.src;
    this.start += 3;
    this.end += 2;
    let buf = '';
    while (this.end < src.length) {
      const r = src[this.end] as string;
      if (r === '"') {
        let quotes = 1;
        while (src[this.end + quotes] === '"') quotes++;
        if (quotes >= 3) {
          buf += '"'.repeat(quotes - 3);
          // gqlparser takes the line of the closing quotes and the column of the opening ones relative to that line.
          const t = this.token('BlockString', blockStringValue(buf));
          this.end += quotes;
          return { token: t };
        }
      }
      const c = r.codePointAt(0) as number;
      if (c < 0x20 && r !== '\t' && r !== '\n' && r !== '\r') {
        return this.error(`Invalid character within String: "\\u${c.toString(16).padStart(4, '0')}".`);
      }
      if (r === '\\' && src.slice(this.end, this.end + 4).join('') === '\\"""') {
        buf += '"""';
        this.end += 4;
      } else if (r === '\r') {
        if (src[this.end + 1] === '\n') this.end++;
        buf += '\n';
        this.end++;
        this.line++;
        this.lineStart = this.end;
      } else {
        this.end++;
        buf += r;
        if (r === '\n') {
          this.line++;
          this.lineStart = this.end;
        }
      }
    }
    return this.error('Unterminated string.');
  }
}

const NO_INDENT = Number.MAX_SAFE_INTEGER;

function leadingWhitespace(s: string): number {
  let i = 0;
  for (const ch of s) {
    if (ch !== ' ' && ch !== '\t') return i;
    i += Buffer.byteLength(ch);
  }
  return NO_INDENT;
}

/** The value of a block string: common indentation and blank first/last lines removed (gqlparser's rules). */
function blockStringValue(raw: string): string {
  const lines = raw.split('\n');
  let common = NO_INDENT;
  for (const line of lines) {
    const indent = leadingWhitespace(line);
    if (indent < line.length && indent < common) {
      common = indent;
      if (common === 0) break;
    }
  }
  if (common !== NO_INDENT) {
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i] as string;
      lines[i] = line.length < common ? '' : line.slice(common);
    }
  }
  let start = 0;
  let end = lines.length;
  while (start < end && leadingWhitespace(lines[start] as string) === NO_INDENT) start++;
  while (start < end && leadingWhitespace(lines[end - 1] as string) === NO_INDENT) end--;
  return lines.slice(start, end).join('\n');
}
