/**
 * Comment placement for the formatter. Comments are kept in a list apart
 * from the AST (as OPA does); each is written before the first node that
 * starts on a later row, or at the end of the line of a node on its row.
 */
import type { FormatComment, LineWriter } from './writer.js';

/** True for the `# METADATA` line that opens an annotation block. */
function isMetadata(c: FormatComment): boolean {
  return c.text.slice(1).trim() === 'METADATA';
}

/** Writes comments on their own lines, keeping one blank line where the source had a gap. */
export function writeComments(w: LineWriter, comments: FormatComment[]): void {
  let inMetadata = false;
  comments.forEach((c, i) => {
    const prev = comments[i - 1];
    if (prev !== undefined) {
      const gap = c.row - prev.row;
      if (gap > 1) {
        w.blankLine();
        inMetadata = false;
      } else if (gap === 1 && inMetadata && isMetadata(c)) w.blankLine();
    }
    if (isMetadata(c)) inMetadata = true;
    w.writeLine(c.text);
  });
}

/**
 * A queue of comments not yet written, in source order. `insertBefore(row)`
 * writes those above `row` and keeps the one on `row` for the end of the line.
 */
export class CommentQueue {
  constructor(public pending: FormatComment[]) {}

  insertBefore(w: LineWriter, row: number): void {
    if (this.pending.length === 0 || row < 0) return;
    const before: FormatComment[] = [];
    const rest: FormatComment[] = [];
    let at: FormatComment | undefined;
    for (const c of this.pending) {
      if (c.row < row) before.push(c);
      else if (c.row === row) at = c;
      else rest.push(c);
    }
    this.pending = rest;
    writeComments(w, before);
    const last = before[before.length - 1];
    if (last !== undefined && row - last.row > 1) w.blankLine();
    if (at !== undefined) {
      // Two comments for one line cannot both trail it: keep both, in order.
      w.lineEnd = w.lineEnd === undefined ? at : { text: w.lineEnd.text + ' ' + at.text, row: at.row };
    }
  }
}
