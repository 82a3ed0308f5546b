/**
 * A YAML scanner that follows go-yaml v2's (libyaml's) state machine, so that
 * OPA's YAML reader is matched token for token: the same tokens, the same
 * look-ahead (a fault past the first document is seen only where go-yaml's
 * scanner reaches it), the same refusals and the same line in the error.
 * Written from the YAML 1.1 rules and go-yaml's behaviour; the parser that
 * reads these tokens is yaml-go-parser.ts.
 */
import type { Mark } from './yaml-go-fault.js';
import type { Token, TokenType } from './yaml-go-token.js';
import { scanBlockScalar, scanFlowScalar, scanPlainScalar } from './yaml-go-scalars.js';
import { ch, GoYamlReader, isAlpha, isBlank, isBlankz, isBreak, isBreakz, isDigit, isHex } from './yaml-go-reader.js';

export type { ScalarStyle, Token, TokenType } from './yaml-go-token.js';

interface SimpleKey {
  possible: boolean;
  required: boolean;
  tokenNumber: number;
  mark: Mark;
}

const MAX_LEVEL = 10_000;
/** Characters that end a plain scalar's first character check (go-yaml's indicator list). */
const INDICATORS = new Set(Array.from('-?:,[]{}#&*!|>\'"%@`', ch));
const URI_CHARS = new Set(Array.from(";/?:@&=+$,.!~*'()[]%", ch));

export class GoYamlScanner extends GoYamlReader {
  private readonly tokens: Token[] = [];
  private head = 0;
  private tokensParsed = 0;
  private tokenAvailable = false;
  private streamStartProduced = false;
  private streamEndProduced = false;
  private indent = -1;
  private readonly indents: number[] = [];
  private simpleKeyAllowed = false;
  private readonly simpleKeys: SimpleKey[] = [];
  private readonly simpleKeysByToken = new Map<number, number>();
  private flowLevel = 0;

  /** The next token without consuming it (go-yaml's peek_token). */
  peek(): Token {
    if (!this.tokenAvailable) this.fetchMoreTokens();
    return this.tokens[this.head] as Token;
  }

  /** Consumes the token `peek` returned. */
  skipToken(): void {
    this.tokenAvailable = false;
    this.tokensParsed++;
    this.streamEndProduced = this.tokens[this.head]?.type === 'STREAM_END';
    this.head++;
  }

  get ended(): boolean {
    return this.streamEndProduced;
  }

  // -- token queue ----------------------------------------------------------

  private insertToken(at: number, token: Token): void {
    if (at < 0) this.tokens.push(token);
    else this.tokens.splice(this.head + at, 0, token);
  }

  private fetchMoreTokens(): void {
    for (;;) {
      if (this.head !== this.tokens.length) {
        const i = this.simpleKeysByToken.get(this.tokensParsed);
        if (i === undefined || !this.simpleKeyValid(this.simpleKeys[i] as SimpleKey)) break;
      }
      this.fetchNextToken();
    }
    this.tokenAvailable = true;
  }

  private fetchNextToken(): void {
    this.need(1);
    if (!this.streamStartProduced) {
      this.indent = -1;
      this.simpleKeys.push({ possible: false, required: false, tokenNumber: 0, mark: this.copyMark() });
      this.simpleKeyAllowed = true;
      this.streamStartProduced = true;
      const m = this.copyMark();
      this.insertToken(-1, { type: 'STREAM_START', start: m, end: m });
      return;
    }
    this.scanToNextToken();
    this.unrollIndent(this.mark.column);
    this.need(4);
    const c = this.at();
    if (this.atEnd()) return this.fetchStreamEnd();
    const col0 = this.mark.column === 0;
    if (col0 && c === ch('%')) return this.fetchDirective();
    if (col0 && isBlankz(this.at(3))) {
      if (c === ch('-') && this.at(1) === c && this.at(2) === c) return this.fetchDocumentIndicator('DOCUMENT_START');
      if (c === ch('.') && this.at(1) === c && this.at(2) === c) return this.fetchDocumentIndicator('DOCUMENT_END');
    }
    if (c === ch('[')) return this.fetchFlowCollectionStart('FLOW_SEQUENCE_START');
    if (c === ch('{')) return this.fetchFlowCollectionStart('FLOW_MAPPING_START');
    if (c === ch(']')) return this.fetchFlowCollectionEnd('FLOW_SEQUENCE_END');
    if (c === ch('}')) return this.fetchFlowCollectionEnd('FLOW_MAPPING_END');
    if (c === ch(',')) return this.fetchFlowEntry();
    if (c === ch('-') && isBlankz(this.at(1))) return this.fetchBlockEntry();
    if (c === ch('?') && (this.flowLevel > 0 || isBlankz(this.at(1)))) return this.fetchKey();
    if (c === ch(':') && (this.flowLevel > 0 || isBlankz(this.at(1)))) return this.fetchValue();
    if (c === ch('*')) return this.fetchAnchor('ALIAS');
    if (c === ch('&')) return this.fetchAnchor('ANCHOR');
    if (c === ch('!')) return this.fetchTag();
    if (c === ch('|') && this.flowLevel === 0) return this.fetchBlockScalar(true);
    if (c === ch('>') && this.flowLevel === 0) return this.fetchBlockScalar(false);
    if (c === ch("'")) return this.fetchFlowScalar(true);
    if (c === ch('"')) return this.fetchFlowScalar(false);
    if (
      !(isBlankz(c) || INDICATORS.has(c)) ||
      (c === ch('-') && !isBlank(this.at(1))) ||
      (this.flowLevel === 0 && (c === ch('?') || c === ch(':')) && !isBlankz(this.at(1)))
    ) {
      return this.fetchPlainScalar();
    }
    this.scannerError(this.copyMark(), 'found character that cannot start any token');
  }

  // -- simple keys and indentation ------------------------------------------

  private simpleKeyValid(key: SimpleKey): boolean {
    if (!key.possible) return false;
    if (key.mark.line < this.mark.line || key.mark.index + 1024 < this.mark.index) {
      if (key.required) this.scannerError(key.mark, "could not find expected ':'");
      key.possible = false;
      return false;
    }
    return true;
  }

  private saveSimpleKey(): void {
    if (!this.simpleKeyAllowed) return;
    const key: SimpleKey = {
      possible: true,
      required: this.flowLevel === 0 && this.indent === this.mark.column,
      tokenNumber: this.tokensParsed + (this.tokens.length - this.head),
      mark: this.copyMark(),
    };
    this.removeSimpleKey();
    this.simpleKeys[this.simpleKeys.length - 1] = key;
    this.simpleKeysByToken.set(key.tokenNumber, this.simpleKeys.length - 1);
  }

  private removeSimpleKey(): void {
    const key = this.simpleKeys[this.simpleKeys.length - 1] as SimpleKey;
    if (!key.possible) return;
    if (key.required) this.scannerError(key.mark, "could not find expected ':'");
    key.possible = false;
    this.simpleKeysByToken.delete(key.tokenNumber);
  }

  private increaseFlowLevel(): void {
    this.simpleKeys.push({ possible: false, required: false, tokenNumber: this.tokensParsed + (this.tokens.length - this.head), mark: this.copyMark() });
    this.flowLevel++;
    if (this.flowLevel > MAX_LEVEL) this.scannerError((this.simpleKeys[this.simpleKeys.length - 1] as SimpleKey).mark, `exceeded max depth of ${MAX_LEVEL}`);
  }

  private decreaseFlowLevel(): void {
    if (this.flowLevel === 0) return;
    this.flowLevel--;
    const key = this.simpleKeys.pop() as SimpleKey;
    this.simpleKeysByToken.delete(key.tokenNumber);
  }

  private rollIndent(column: number, number: number, type: TokenType, mark: Mark): void {
    if (this.flowLevel > 0 || this.indent >= column) return;
    this.indents.push(this.indent);
    this.indent = column;
    if (this.indents.length > MAX_LEVEL)
      this.scannerError((this.simpleKeys[this.simpleKeys.length - 1] as SimpleKey).mark, `exceeded max depth of ${MAX_LEVEL}`);
    this.insertToken(number > -1 ? number - this.tokensParsed : -1, { type, start: mark, end: mark });
  }

  private unrollIndent(column: number): void {
    if (this.flowLevel > 0) return;
    while (this.indent > column) {
      const m = this.copyMark();
      this.insertToken(-1, { type: 'BLOCK_END', start: m, end: m });
      this.indent = this.indents.pop() as number;
    }
  }

  // -- fetchers -------------------------------------------------------------

  private simpleToken(type: TokenType): void {
    const start = this.copyMark();
    this.skip();
    this.insertToken(-1, { type, start, end: this.copyMark() });
  }

  private fetchStreamEnd(): void {
    if (this.mark.column !== 0) {
      this.mark.column = 0;
      this.mark.line++;
    }
    this.unrollIndent(-1);
    this.removeSimpleKey();
    this.simpleKeyAllowed = false;
    const m = this.copyMark();
    this.insertToken(-1, { type: 'STREAM_END', start: m, end: m });
  }

  private fetchDirective(): void {
    this.unrollIndent(-1);
    this.removeSimpleKey();
    this.simpleKeyAllowed = false;
    this.insertToken(-1, this.scanDirective());
  }

  private fetchDocumentIndicator(type: TokenType): void {
    this.unrollIndent(-1);
    this.removeSimpleKey();
    this.simpleKeyAllowed = false;
    const start = this.copyMark();
    this.skip();
    this.skip();
    this.skip();
    this.insertToken(-1, { type, start, end: this.copyMark() });
  }

  private fetchFlowCollectionStart(type: TokenType): void {
    this.saveSimpleKey();
    this.increaseFlowLevel();
    this.simpleKeyAllowed = true;
    this.simpleToken(type);
  }

  private fetchFlowCollectionEnd(type: TokenType): void {
    this.removeSimpleKey();
    this.decreaseFlowLevel();
    this.simpleKeyAllowed = false;
    this.simpleToken(type);
  }

  private fetchFlowEntry(): void {
    this.removeSimpleKey();
    this.simpleKeyAllowed = true;
    this.simpleToken('FLOW_ENTRY');
  }

  /** `-`, `?` or `:` in block context may open a collection at its column, where a simple key could start. */
  private openBlockCollection(type: TokenType, problem: string): void {
    if (this.flowLevel > 0) return;
    if (!this.simpleKeyAllowed) this.scannerError(this.copyMark(), problem);
    this.rollIndent(this.mark.column, -1, type, this.copyMark());
  }

  private fetchBlockEntry(): void {
    this.openBlockCollection('BLOCK_SEQUENCE_START', 'block sequence entries are not allowed in this context');
    this.removeSimpleKey();
    this.simpleKeyAllowed = true;
    this.simpleToken('BLOCK_ENTRY');
  }

  private fetchKey(): void {
    this.openBlockCollection('BLOCK_MAPPING_START', 'mapping keys are not allowed in this context');
    this.removeSimpleKey();
    this.simpleKeyAllowed = this.flowLevel === 0;
    this.simpleToken('KEY');
  }

  private fetchValue(): void {
    const key = this.simpleKeys[this.simpleKeys.length - 1] as SimpleKey;
    if (this.simpleKeyValid(key)) {
      this.insertToken(key.tokenNumber - this.tokensParsed, { type: 'KEY', start: key.mark, end: key.mark });
      this.rollIndent(key.mark.column, key.tokenNumber, 'BLOCK_MAPPING_START', key.mark);
      key.possible = false;
      this.simpleKeysByToken.delete(key.tokenNumber);
      this.simpleKeyAllowed = false;
    } else {
      this.openBlockCollection('BLOCK_MAPPING_START', 'mapping values are not allowed in this context');
      this.simpleKeyAllowed = this.flowLevel === 0;
    }
    this.simpleToken('VALUE');
  }

  private fetchAnchor(type: 'ALIAS' | 'ANCHOR'): void {
    this.saveSimpleKey();
    this.simpleKeyAllowed = false;
    const start = this.copyMark();
    this.skip();
    const name = this.readAlphas();
    const end = this.copyMark();
    const c = this.at();
    if (name === '' || !(isBlankz(c) || [ch('?'), ch(':'), ch(','), ch(']'), ch('}'), ch('%'), ch('@'), ch('`')].includes(c))) {
      this.scannerError(start, 'did not find expected alphabetic or numeric character');
    }
    this.insertToken(-1, { type, start, end, value: name });
  }

  private fetchTag(): void {
    this.saveSimpleKey();
    this.simpleKeyAllowed = false;
    this.insertToken(-1, this.scanTag());
  }

  private fetchBlockScalar(literal: boolean): void {
    this.removeSimpleKey();
    this.simpleKeyAllowed = true;
    this.insertToken(-1, scanBlockScalar(this, literal, this.indent));
  }

  private fetchFlowScalar(single: boolean): void {
    this.saveSimpleKey();
    this.simpleKeyAllowed = false;
    this.insertToken(-1, scanFlowScalar(this, single));
  }

  private fetchPlainScalar(): void {
    this.saveSimpleKey();
    this.simpleKeyAllowed = false;
    const { token, simpleKeyAllowed } = scanPlainScalar(this, this.indent, this.flowLevel);
    if (simpleKeyAllowed) this.simpleKeyAllowed = true;
    this.insertToken(-1, token);
  }

  /** Whitespace, comments and line breaks up to the next token; a tab may not indent a block line. */
  private scanToNextToken(): void {
    for (;;) {
      this.need(1);
      if (this.mark.column === 0 && this.bomAtStart) this.skip();
      this.need(1);
      while (this.at() === 0x20 || ((this.flowLevel > 0 || !this.simpleKeyAllowed) && this.at() === 0x09)) {
        this.skip();
        this.need(1);
      }
      if (this.at() === ch('#')) {
        while (!isBreakz(this.at())) {
          this.skip();
          this.need(1);
        }
      }
      if (!isBreak(this.at())) return;
      this.need(2);
      this.skipLine();
      if (this.flowLevel === 0) this.simpleKeyAllowed = true;
    }
  }

  // -- scanners -------------------------------------------------------------

  private scanDirective(): Token {
    const start = this.copyMark();
    this.skip();
    const name = this.readAlphas();
    if (name === '') this.scannerError(start, 'could not find expected directive name');
    if (!isBlankz(this.at())) this.scannerError(start, 'found unexpected non-alphabetical character');
    let token: Token;
    if (name === 'YAML') {
      this.skipBlanks();
      const major = this.versionNumber(start);
      if (this.at() !== ch('.')) this.scannerError(start, "did not find expected digit or '.' character");
      this.skip();
      const minor = this.versionNumber(start);
      token = { type: 'VERSION_DIRECTIVE', start, end: this.copyMark(), major, minor };
    } else if (name === 'TAG') {
      this.skipBlanks();
      const handle = this.scanTagHandle(true, start);
      this.need(1);
      if (!isBlank(this.at())) this.scannerError(start, 'did not find expected whitespace');
      this.skipBlanks();
      const prefix = this.scanTagUri(true, '', start);
      this.need(1);
      if (!isBlankz(this.at())) this.scannerError(start, 'did not find expected whitespace or line break');
      token = { type: 'TAG_DIRECTIVE', start, end: this.copyMark(), value: handle, suffix: prefix };
    } else {
      this.scannerError(start, 'found unknown directive name');
    }
    this.endLine(start);
    return token;
  }

  private versionNumber(start: Mark): number {
    this.need(1);
    let value = 0;
    let length = 0;
    while (isDigit(this.at())) {
      if (++length > 2) this.scannerError(start, 'found extremely long version number');
      value = value * 10 + (this.at() - 0x30);
      this.skip();
      this.need(1);
    }
    if (length === 0) this.scannerError(start, 'did not find expected version number');
    return value;
  }

  private scanTag(): Token {
    const start = this.copyMark();
    this.need(2);
    let handle = '';
    let suffix: string;
    if (this.at(1) === ch('<')) {
      this.skip();
      this.skip();
      suffix = this.scanTagUri(false, '', start);
      if (this.at() !== ch('>')) this.scannerError(start, "did not find the expected '>'");
      this.skip();
    } else {
      handle = this.scanTagHandle(false, start);
      if (handle.length > 1 && handle.endsWith('!')) suffix = this.scanTagUri(false, '', start);
      else {
        suffix = this.scanTagUri(false, handle, start);
        handle = '!';
        if (suffix === '') [handle, suffix] = ['', '!'];
      }
    }
    this.need(1);
    if (!isBlankz(this.at())) this.scannerError(start, 'did not find expected whitespace or line break');
    return { type: 'TAG', start, end: this.copyMark(), value: handle, suffix };
  }

  private scanTagHandle(directive: boolean, start: Mark): string {
    this.need(1);
    if (this.at() !== ch('!')) this.scannerError(start, "did not find expected '!'");
    let s = this.read();
    s += this.readAlphas();
    if (this.at() === ch('!')) s += this.read();
    else if (directive && s !== '!') this.scannerError(start, "did not find expected '!'");
    return s;
  }

  private scanTagUri(directive: boolean, head: string, start: Mark): string {
    let s = head.length > 1 ? head.slice(1) : '';
    let hasTag = head.length > 0;
    this.need(1);
    while (isAlpha(this.at()) || URI_CHARS.has(this.at())) {
      if (this.at() === ch('%')) s += this.scanUriEscapes(directive, start);
      else s += this.read();
      this.need(1);
      hasTag = true;
    }
    if (!hasTag) this.scannerError(start, 'did not find expected tag URI');
    return s;
  }

  private scanUriEscapes(_directive: boolean, start: Mark): string {
    const bytes: number[] = [];
    let width = 1024;
    while (width > 0) {
      this.need(3);
      if (!(this.at() === ch('%') && isHex(this.at(1)) && isHex(this.at(2)))) this.scannerError(start, 'did not find URI escaped octet');
      const octet = parseInt(String.fromCharCode(this.at(1), this.at(2)), 16);
      if (width === 1024) {
        width = (octet & 0x80) === 0 ? 1 : (octet & 0xe0) === 0xc0 ? 2 : (octet & 0xf0) === 0xe0 ? 3 : (octet & 0xf8) === 0xf0 ? 4 : 0;
        if (width === 0) this.scannerError(start, 'found an incorrect leading UTF-8 octet');
      } else if ((octet & 0xc0) !== 0x80) this.scannerError(start, 'found an incorrect trailing UTF-8 octet');
      bytes.push(octet);
      this.skip();
      this.skip();
      this.skip();
      width--;
    }
    return Buffer.from(bytes).toString('utf8');
  }
}
