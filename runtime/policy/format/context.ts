/**
 * What the formatter's writers share: the source text, node spans from the
 * parser, the line writer and the comment queue.
 */
import type { Body, Expr, Loc } from '../ast.js';
import type { SpanTable } from '../parser-terms.js';
import { CommentQueue } from './comments.js';
import { type FormatComment, LineWriter } from './writer.js';
import { lineIndexAt, lineStarts } from '../source-lines.js';

/** Body and expression writers, which term writing needs for comprehensions (set by the formatter's entry point). */
export interface ExprWriters {
  body(ctx: FormatContext, body: Body): void;
  expr(ctx: FormatContext, e: Expr): void;
}

export class FormatContext {
  readonly w = new LineWriter();
  readonly comments: CommentQueue;
  private readonly lineStarts: number[];

  constructor(
    readonly src: string,
    private readonly spans: SpanTable,
    comments: FormatComment[],
    readonly exprs: ExprWriters,
  ) {
    this.comments = new CommentQueue(comments);
    this.lineStarts = lineStarts(src);
  }

  /** Writes the comments above `row`; one on `row` trails the current line. */
  insertComments(row: number): void {
    this.comments.insertBefore(this.w, row);
  }

  offsetOf(loc: Loc): number {
    return (this.lineStarts[loc.row - 1] ?? this.src.length) + loc.col - 1;
  }

  rowOf(offset: number): number {
    return lineIndexAt(this.lineStarts, offset) + 1;
  }

  /** Source text of a parsed node, when the parser recorded its span. */
  textOf(node: object): string | undefined {
    const s = this.spans.get(node);
    return s === undefined ? undefined : this.src.slice(s.start, s.end);
  }

  spanOf(node: object): { start: number; end: number } | undefined {
    return this.spans.get(node);
  }

  /** Row of a node's last character (its start row when no span is known). */
  endRow(node: object, loc: Loc): number {
    const s = this.spans.get(node);
    return s === undefined || s.end <= s.start ? loc.row : this.rowOf(s.end - 1);
  }

  /**
   * Row of the bracket closing the first `open` in a node's text (after
   * skipping a first `skipOpen`...`skipClose` group), or -1: a plain bracket
   * count, as OPA's formatter does to place comments before a closing brace.
   */
  closingRow(node: object, open: string, close: string, skip?: [string, string]): number {
    const s = this.spans.get(node);
    if (s === undefined) return -1;
    let i = s.start;
    if (skip !== undefined) {
      while (i < s.end && this.src[i] !== skip[0]) i++;
      i = this.matchClose(i, s.end, skip[0], skip[1]);
      if (i < 0) return -1;
    }
    while (i < s.end && this.src[i] !== open) i++;
    if (i >= s.end) return -1;
    const j = this.matchClose(i, s.end, open, close);
    return j < 0 ? -1 : this.rowOf(j);
  }

  private matchClose(i: number, end: number, open: string, close: string): number {
    let depth = 1;
    while (depth > 0) {
      i++;
      if (i >= end) return -1;
      const c = this.src[i];
      if (c === open) depth++;
      else if (c === close) depth--;
    }
    return i;
  }
}
