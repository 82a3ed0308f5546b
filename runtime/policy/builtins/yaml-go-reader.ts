/**
 * go-yaml v2's reader and the cursor its scanner moves: the text is decoded
 * (and its characters checked) 512 bytes at a time, as the scanner asks for
 * them, so a control character past what go-yaml reads is not seen; marks
 * count characters, lines and columns as go-yaml does.
 */
import { GoYamlFault, type Mark } from './yaml-go-fault.js';

/** go-yaml's raw input buffer: the text is decoded (and its characters checked) 512 bytes at a time, when the scanner needs them. */
const RAW_CHUNK = 512;

export const isBreak = (c: number): boolean => c === 0x0a || c === 0x0d || c === 0x85 || c === 0x2028 || c === 0x2029;
export const isBlank = (c: number): boolean => c === 0x20 || c === 0x09;
export const isBlankz = (c: number): boolean => isBlank(c) || isBreak(c) || c === 0;
export const isBreakz = (c: number): boolean => isBreak(c) || c === 0;
export const isAlpha = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x2d;
export const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
export const isHex = (c: number): boolean => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
export const ch = (s: string): number => s.charCodeAt(0);
const readable = (c: number): boolean =>
  c === 0x09 ||
  c === 0x0a ||
  c === 0x0d ||
  (c >= 0x20 && c <= 0x7e) ||
  c === 0x85 ||
  (c >= 0xa0 && c <= 0xd7ff) ||
  (c >= 0xe000 && c <= 0xfffd) ||
  (c >= 0x10000 && c <= 0x10ffff);
const utf8Width = (c: number): number => (c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4);

export class GoYamlReader {
  private readonly cps: number[];
  /** Characters decoded so far (go-yaml's reader works ahead in chunks). */
  private decoded = 0;
  private rawBytes = 0;
  private pos = 0;
  readonly mark: Mark = { index: 0, line: 0, column: 0 };

  /**
   * go-yaml's buffer starts with a byte-order mark after the one its reader drops: it then skips one character at the
   * start of every line it scans for a token (it looks for the mark at the buffer's start, not at the line's).
   */
  readonly bomAtStart: boolean;

  constructor(text: string) {
    // go-yaml reads an empty text as one line break, and drops a leading byte-order mark (its bytes still count as read).
    const bom = text.charCodeAt(0) === 0xfeff;
    if (bom) this.rawBytes = 3;
    const body = bom ? text.slice(1) : text;
    // A lone surrogate is what Go's JSON decoder made U+FFFD of before the text reached go-yaml.
    this.cps = Array.from(body === '' && !bom ? '\n' : body, (c) => {
      const cp = c.codePointAt(0) as number;
      return cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp;
    });
    this.bomAtStart = this.cps[0] === 0xfeff;
  }

  /** Makes `n` characters from the current one readable, as go-yaml's `cache`; decoding a control character is its reader error. */
  need(n: number): void {
    while (this.decoded < this.pos + n && this.decoded < this.cps.length) {
      const limit = this.rawBytes + RAW_CHUNK;
      while (this.decoded < this.cps.length) {
        const c = this.cps[this.decoded] as number;
        const w = utf8Width(c);
        if (this.rawBytes + w > limit) break;
        if (!readable(c)) throw new GoYamlFault({ stage: 'reader', problem: 'control characters are not allowed' });
        this.rawBytes += w;
        this.decoded++;
      }
    }
  }

  /** The character `k` places ahead (0 past the end, as go-yaml pads its buffer). */
  at(k = 0): number {
    return this.cps[this.pos + k] ?? 0;
  }

  copyMark(): Mark {
    return { ...this.mark };
  }

  skip(): void {
    this.mark.index++;
    this.mark.column++;
    this.pos++;
  }

  skipLine(): void {
    if (this.at() === 0x0d && this.at(1) === 0x0a) {
      this.mark.index += 2;
      this.pos += 2;
    } else if (isBreak(this.at())) {
      this.mark.index++;
      this.pos++;
    } else return;
    this.mark.column = 0;
    this.mark.line++;
  }

  read(): string {
    const s = String.fromCodePoint(this.at());
    this.skip();
    return s;
  }

  /** A line break as go-yaml keeps it in a scalar: CR LF, CR, LF and NEL as `\n`, LS and PS as themselves. */
  readLine(): string {
    const c = this.at();
    if (!isBreak(c)) return '';
    let out = '\n';
    if (c === 0x0d && this.at(1) === 0x0a) {
      this.pos++;
      this.mark.index++;
    } else if (c === 0x2028 || c === 0x2029) out = String.fromCodePoint(c);
    this.pos++;
    this.mark.index++;
    this.mark.column = 0;
    this.mark.line++;
    return out;
  }

  scannerError(context: Mark, problem: string): never {
    throw new GoYamlFault({ stage: 'scanner', problem, problemMark: this.copyMark(), contextMark: context });
  }

  skipBlanks(): void {
    this.need(1);
    while (isBlank(this.at())) {
      this.skip();
      this.need(1);
    }
  }

  /** The run of characters go-yaml calls alphanumeric (`isAlpha`) from here, read; empty when there is none. */
  readAlphas(): string {
    let s = '';
    this.need(1);
    while (isAlpha(this.at())) {
      s += this.read();
      this.need(1);
    }
    return s;
  }

  /** The blanks, comment and line break that must end a directive or a block scalar's header, skipped; anything else there is go-yaml's error. */
  endLine(start: Mark): void {
    this.skipBlanks();
    this.skipComment();
    if (!isBreakz(this.at())) this.scannerError(start, 'did not find expected comment or line break');
    if (isBreak(this.at())) {
      this.need(2);
      this.skipLine();
    }
  }

  skipComment(): void {
    if (this.at() !== ch('#')) return;
    while (!isBreakz(this.at())) {
      this.skip();
      this.need(1);
    }
  }

  documentIndicatorHere(): boolean {
    const c = this.at();
    return this.mark.column === 0 && (c === ch('-') || c === ch('.')) && this.at(1) === c && this.at(2) === c && isBlankz(this.at(3));
  }

  atEnd(): boolean {
    return this.pos >= this.cps.length;
  }
}
