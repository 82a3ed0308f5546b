/**
 * Line writer for the Rego formatter: tab indentation, and a pending
 * end-of-line comment that is written when the current line ends (the way
 * `opa fmt` keeps `x := 1 # note` comments on their line).
 */
/** A comment as the formatter writes it. */
export interface FormatComment {
  /** The comment with its `#`, trailing whitespace removed. */
  text: string;
  row: number;
}

export class LineWriter {
  private out = '';
  level = 0;
  /** True while a line has been started and not ended. */
  inline = false;
  /** Comment to print at the end of the current line. */
  lineEnd: FormatComment | undefined;
  /** Hold `lineEnd` past the next line end (a multi-line literal opens on this line). */
  private holdLineEnd = false;

  get length(): number {
    return this.out.length;
  }

  text(): string {
    return this.out;
  }

  /** Drops what was written after `length` (used to fall back to the source text). */
  truncate(length: number): void {
    this.out = this.out.slice(0, length);
  }

  write(s: string): void {
    this.out += s;
  }

  startLine(): void {
    this.inline = true;
    this.out += '\t'.repeat(this.level);
  }

  endLine(): void {
    this.inline = false;
    if (this.lineEnd !== undefined && !this.holdLineEnd) {
      this.out += ' ' + this.lineEnd.text;
      this.lineEnd = undefined;
    }
    this.holdLineEnd = false;
    this.out += '\n';
  }

  blankLine(): void {
    if (this.inline) this.endLine();
    this.out += '\n';
  }

  writeLine(s: string): void {
    if (!this.inline) this.startLine();
    this.out += s;
    this.endLine();
  }

  /** Ends the line, indents, and starts the first line of a multi-line sequence. */
  startMultiline(): void {
    this.holdLineEnd = true;
    this.endLine();
    this.level++;
    this.startLine();
  }

  up(): void {
    this.level++;
  }

  down(): void {
    if (this.level > 0) this.level--;
  }
}
