/**
 * go-yaml v2's scalar scanners: plain, quoted and block scalars, with their
 * folding of blanks and line breaks and their refusals (an unknown escape,
 * a tab where indentation is expected, a document marker inside quotes).
 */
import type { Mark } from './yaml-go-fault.js';
import { ch, type GoYamlReader, isBlank, isBlankz, isBreak, isBreakz, isDigit, isHex } from './yaml-go-reader.js';
import type { Token } from './yaml-go-token.js';

/** A `|` or `>` scalar; `indent` is the scanner's block indentation (-1 at the top). */
export function scanBlockScalar(r: GoYamlReader, literal: boolean, blockIndent: number): Token {
  const start = r.copyMark();
  r.skip();
  r.need(1);
  let chomping = 0;
  let increment = 0;
  const chomp = (): void => {
    if (r.at() === ch('+') || r.at() === ch('-')) {
      chomping = r.at() === ch('+') ? 1 : -1;
      r.skip();
      r.need(1);
    }
  };
  const digit = (): void => {
    if (!isDigit(r.at())) return;
    if (r.at() === ch('0')) r.scannerError(start, 'found an indentation indicator equal to 0');
    increment = r.at() - 0x30;
    r.skip();
    r.need(1);
  };
  if (r.at() === ch('+') || r.at() === ch('-')) {
    chomp();
    digit();
  } else if (isDigit(r.at())) {
    digit();
    chomp();
  }
  r.endLine(start);
  let end = r.copyMark();
  let indent = increment > 0 ? (blockIndent >= 0 ? blockIndent + increment : increment) : 0;
  let s = '';
  let leadingBreak = '';
  let trailingBreaks = '';
  const breaks = (): void => {
    end = r.copyMark();
    let maxIndent = 0;
    for (;;) {
      r.need(1);
      while ((indent === 0 || r.mark.column < indent) && r.at() === 0x20) {
        r.skip();
        r.need(1);
      }
      if (r.mark.column > maxIndent) maxIndent = r.mark.column;
      if ((indent === 0 || r.mark.column < indent) && r.at() === 0x09) {
        r.scannerError(start, 'found a tab character where an indentation space is expected');
      }
      if (!isBreak(r.at())) break;
      r.need(2);
      trailingBreaks += r.readLine();
      end = r.copyMark();
    }
    if (indent === 0) indent = Math.max(maxIndent, blockIndent + 1, 1);
  };
  breaks();
  r.need(1);
  let leadingBlank = false;
  while (r.mark.column === indent && !r.atEnd()) {
    const trailingBlank = isBlank(r.at());
    if (!literal && !leadingBlank && !trailingBlank && leadingBreak.startsWith('\n')) {
      if (trailingBreaks === '') s += ' ';
    } else s += leadingBreak;
    s += trailingBreaks;
    trailingBreaks = '';
    leadingBlank = isBlank(r.at());
    while (!isBreakz(r.at())) {
      s += r.read();
      r.need(1);
    }
    r.need(2);
    leadingBreak = r.readLine();
    breaks();
  }
  if (chomping !== -1) s += leadingBreak;
  if (chomping === 1) s += trailingBreaks;
  return { type: 'SCALAR', start, end, value: s, style: literal ? 'BLOCK_LITERAL' : 'BLOCK_FOLDED' };
}

/** The blanks and line breaks between two runs of a quoted or plain scalar's text, and what YAML folds them to. */
class Folding {
  /** A line break was read (the blanks after it are indentation). */
  leadingBlanks = false;
  private whitespaces = '';
  private leadingBreak = '';
  private trailingBreaks = '';

  /** Reads blanks and line breaks; `indentBlank` sees each blank after a line break before it is skipped. */
  eat(r: GoYamlReader, indentBlank?: () => void): void {
    while (isBlank(r.at()) || isBreak(r.at())) {
      if (isBlank(r.at())) {
        if (this.leadingBlanks) {
          indentBlank?.();
          r.skip();
        } else this.whitespaces += r.read();
      } else {
        r.need(2);
        if (!this.leadingBlanks) {
          this.whitespaces = '';
          this.leadingBreak = r.readLine();
          this.leadingBlanks = true;
        } else this.trailingBreaks += r.readLine();
      }
      r.need(1);
    }
  }

  /** The text of what was read: blanks as they are, one line break as a space, more as the breaks after the first. */
  flush(): string {
    let out = this.whitespaces;
    if (this.leadingBlanks) {
      out = this.leadingBreak.startsWith('\n') ? this.trailingBreaks || ' ' : this.leadingBreak + this.trailingBreaks;
      this.leadingBreak = '';
      this.trailingBreaks = '';
      this.leadingBlanks = false;
    }
    this.whitespaces = '';
    return out;
  }
}

/** A quoted scalar; a document marker or the end of the text inside it is an error. */
export function scanFlowScalar(r: GoYamlReader, single: boolean): Token {
  const start = r.copyMark();
  r.skip();
  let s = '';
  const folding = new Folding();
  for (;;) {
    r.need(4);
    if (r.documentIndicatorHere()) r.scannerError(start, 'found unexpected document indicator');
    if (r.atEnd()) r.scannerError(start, 'found unexpected end of stream');
    folding.leadingBlanks = false;
    while (!isBlankz(r.at())) {
      const c = r.at();
      if (single && c === ch("'") && r.at(1) === ch("'")) {
        s += "'";
        r.skip();
        r.skip();
      } else if (c === (single ? ch("'") : ch('"'))) break;
      else if (!single && c === ch('\\') && isBreak(r.at(1))) {
        r.need(3);
        r.skip();
        r.skipLine();
        folding.leadingBlanks = true;
        break;
      } else if (!single && c === ch('\\')) s += scanEscape(r, start);
      else s += r.read();
      r.need(2);
    }
    r.need(1);
    if (r.at() === (single ? ch("'") : ch('"'))) break;
    folding.eat(r);
    s += folding.flush();
  }
  r.skip();
  return { type: 'SCALAR', start, end: r.copyMark(), value: s, style: single ? 'QUOTE_SINGLE' : 'QUOTE_DOUBLE' };
}

/** One `\\` escape of a double-quoted scalar, as YAML 1.1 has them (`\\/` is not one). */
function scanEscape(r: GoYamlReader, start: Mark): string {
  const simple: Record<string, string> = {
    '0': '\0',
    a: '\x07',
    b: '\b',
    t: '\t',
    '\t': '\t',
    n: '\n',
    v: '\v',
    f: '\f',
    r: '\r',
    e: '\x1b',
    ' ': ' ',
    '"': '"',
    "'": "'",
    '\\': '\\',
    N: '\u0085',
    _: '\u00a0',
    L: '\u2028',
    P: '\u2029',
  };
  const e = String.fromCodePoint(r.at(1));
  const lengths: Record<string, number> = { x: 2, u: 4, U: 8 };
  const codeLength = lengths[e] ?? 0;
  const out = simple[e];
  if (out === undefined && codeLength === 0) r.scannerError(start, 'found unknown escape character');
  r.skip();
  r.skip();
  if (codeLength === 0) return out as string;
  r.need(codeLength);
  let value = 0;
  for (let k = 0; k < codeLength; k++) {
    if (!isHex(r.at(k))) r.scannerError(start, 'did not find expected hexdecimal number');
    value = value * 16 + parseInt(String.fromCharCode(r.at(k)), 16);
  }
  if ((value >= 0xd800 && value <= 0xdfff) || value > 0x10ffff) r.scannerError(start, 'found invalid Unicode character escape code');
  for (let k = 0; k < codeLength; k++) r.skip();
  return String.fromCodePoint(value);
}

/** A plain scalar; `simpleKeyAllowed` says whether it ended after a line break (a key may start there). */
export function scanPlainScalar(r: GoYamlReader, blockIndent: number, flowLevel: number): { token: Token; simpleKeyAllowed: boolean } {
  let s = '';
  const folding = new Folding();
  const indent = blockIndent + 1;
  const start = r.copyMark();
  let end = r.copyMark();
  for (;;) {
    r.need(4);
    if (r.documentIndicatorHere()) break;
    if (r.at() === ch('#')) break;
    while (!isBlankz(r.at())) {
      const c = r.at();
      if (
        (c === ch(':') && isBlankz(r.at(1))) ||
        (flowLevel > 0 && (c === ch(',') || c === ch('?') || c === ch('[') || c === ch(']') || c === ch('{') || c === ch('}')))
      ) {
        break;
      }
      s += folding.flush() + r.read();
      end = r.copyMark();
      r.need(2);
    }
    if (!(isBlank(r.at()) || isBreak(r.at()))) break;
    r.need(1);
    folding.eat(r, () => {
      if (r.mark.column < indent && r.at() === 0x09) r.scannerError(start, 'found a tab character that violates indentation');
    });
    if (flowLevel === 0 && r.mark.column < indent) break;
  }
  return { token: { type: 'SCALAR', start, end, value: s, style: 'PLAIN' }, simpleKeyAllowed: folding.leadingBlanks };
}
