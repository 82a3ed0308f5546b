/**
 * Writing terms: scalars as written in the source, refs, infix calls,
 * collections (one line, or one item line per source line when written
 * across lines), comprehensions.
 */
import { KEYWORDS } from '../parser-terms.js';
import type { Body, CallTerm, Loc, RefTerm, Term } from '../ast.js';
import type { FormatContext } from './context.js';
import { infixOf, isUnionCall } from './infix.js';

/** Raised when a comment sits inside a term laid out on one line: the term is then written as in the source. */
export class UnexpectedComment extends Error {}

type Item = { loc: Loc; write: () => void };

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Writes a term; falls back to its source text when a comment sits inside a one-line layout. */
export function writeTerm(ctx: FormatContext, t: Term, parens = false): void {
  if (ctx.comments.pending.length === 0) return writeTermParens(ctx, t, parens);
  const length = ctx.w.length;
  const level = ctx.w.level;
  const saved = ctx.comments.pending;
  const lineEnd = ctx.w.lineEnd;
  try {
    writeTermParens(ctx, t, parens);
  } catch (e) {
    const text = ctx.textOf(t);
    if (!(e instanceof UnexpectedComment) || text === undefined) throw e;
    ctx.w.truncate(length);
    ctx.w.level = level;
    ctx.w.lineEnd = lineEnd;
    ctx.w.write(text);
    const lastRow = ctx.endRow(t, t.loc);
    ctx.comments.pending = saved.filter((c) => c.row >= lastRow);
  }
}

function writeTermParens(ctx: FormatContext, t: Term, parens: boolean): void {
  const w = ctx.w;
  ctx.insertComments(t.loc.row);
  if (!w.inline) w.startLine();
  switch (t.type) {
    case 'null':
      w.write('null');
      break;
    case 'boolean':
      w.write(String(t.value));
      break;
    case 'number':
      w.write(ctx.textOf(t) ?? String(t.value));
      break;
    case 'string':
      w.write(ctx.textOf(t) ?? JSON.stringify(t.value));
      break;
    case 'var':
      w.write(t.name);
      break;
    case 'ref':
      writeRef(ctx, t.terms);
      break;
    case 'array':
      writeCollection(
        ctx,
        t,
        '[',
        ']',
        t.items.map((x) => item(ctx, x, true)),
      );
      break;
    case 'set':
      if (t.items.length === 0) {
        w.write('set()');
        ctx.insertComments(ctx.closingRow(t, '(', ')'));
      } else
        writeCollection(
          ctx,
          t,
          '{',
          '}',
          t.items.map((x) => item(ctx, x, true)),
        );
      break;
    case 'object':
      writeCollection(
        ctx,
        t,
        '{',
        '}',
        t.entries.map(([k, v]) => ({
          loc: k.loc,
          write: () => {
            writeMaybeParens(ctx, k, isUnionCall(k));
            w.write(': ');
            writeMaybeParens(ctx, v, isUnionCall(v));
          },
        })),
      );
      break;
    case 'arraycomp':
      w.write('[');
      writeComprehension(ctx, t, t.term, t.body, '[', ']');
      w.write(']');
      break;
    case 'setcomp':
      w.write('{');
      writeComprehension(ctx, t, t.term, t.body, '{', '}');
      w.write('}');
      break;
    case 'objectcomp':
      // The key stays on the brace's line; a body on a later line than the brace goes below.
      w.write('{');
      writeMaybeParens(ctx, t.key, isUnionCall(t.key));
      w.write(': ');
      writeComprehension(ctx, t, t.value, t.body, '{', '}', t.loc.row);
      w.write('}');
      break;
    case 'call':
      writeCall(ctx, t, parens);
      break;
  }
  if (!w.inline) w.startLine();
}

function writeMaybeParens(ctx: FormatContext, t: Term, parens: boolean): void {
  if (parens) ctx.w.write('(');
  writeTerm(ctx, t);
  if (parens) ctx.w.write(')');
}

function item(ctx: FormatContext, t: Term, parenUnion: boolean): Item {
  return { loc: t.loc, write: () => writeMaybeParens(ctx, t, parenUnion && isUnionCall(t)) };
}

export function writeRef(ctx: FormatContext, terms: Term[]): void {
  const [head, ...path] = terms;
  if (head === undefined) return;
  writeTermParens(ctx, head, false);
  for (const p of path) {
    if (p.type === 'string') writeRefString(ctx, p);
    else if (p.type === 'var') ctx.w.write('[' + p.name + ']');
    else {
      ctx.w.write('[');
      writeTerm(ctx, p);
      ctx.w.write(']');
    }
  }
}

/** `.name` when the string is a valid name; keywords keep brackets when written with them. */
function writeRefString(ctx: FormatContext, p: Extract<Term, { type: 'string' }>): void {
  const quoted = ctx.textOf(p)?.startsWith('"') === true;
  if (!VAR_NAME.test(p.value) || (KEYWORDS.has(p.value) && quoted)) ctx.w.write('[' + JSON.stringify(p.value) + ']');
  else ctx.w.write('.' + p.value);
}

function writeCall(ctx: FormatContext, t: CallTerm, parens: boolean): void {
  if (refNameIs(t.op, 'internal.template_string')) {
    ctx.w.write(ctx.textOf(t) ?? '');
    return;
  }
  const infix = infixOf(t.op);
  if (infix === undefined || (infix !== 'in' && t.args.length !== 2)) return writeCallPlain(ctx, t.op, t.args);
  if (infix === 'in') return writeIn(ctx, t.args, true);
  if (parens) ctx.w.write('(');
  writeTermParens(ctx, t.args[0] as Term, true);
  ctx.w.write(` ${infix} `);
  writeTermParens(ctx, t.args[1] as Term, true);
  if (parens) ctx.w.write(')');
}

function refNameIs(op: RefTerm, name: string): boolean {
  const parts = name.split('.');
  return (
    op.terms.length === parts.length &&
    op.terms.every((x, i) => (i === 0 ? x.type === 'var' && x.name === parts[0] : x.type === 'string' && x.value === parts[i]))
  );
}

/** `x in xs` or `k, v in xs` (parenthesized in term position when it has a key). */
export function writeIn(ctx: FormatContext, args: Term[], parens: boolean): void {
  if (args.length === 2) {
    writeTermParens(ctx, args[0] as Term, true);
    ctx.w.write(' in ');
    writeTermParens(ctx, args[1] as Term, true);
    return;
  }
  if (parens) ctx.w.write('(');
  writeTermParens(ctx, args[0] as Term, true);
  ctx.w.write(', ');
  writeTermParens(ctx, args[1] as Term, true);
  ctx.w.write(' in ');
  writeTermParens(ctx, args[2] as Term, true);
  if (parens) ctx.w.write(')');
}

export function writeCallPlain(ctx: FormatContext, op: RefTerm, args: Term[]): void {
  writeRef(ctx, op.terms);
  ctx.w.write('(');
  writeItems(ctx, {
    items: args.map((a) => item(ctx, a, false)),
    container: op.loc,
    newlineFirst: false,
    closeRow: -1,
  });
  ctx.w.write(')');
}

function writeCollection(ctx: FormatContext, t: Term, open: string, close: string, items: Item[]): void {
  ctx.w.write(open);
  const span = ctx.spanOf(t);
  const first = items[0];
  let newlineFirst = false;
  if (span !== undefined && first !== undefined) {
    newlineFirst = ctx.src.slice(span.start, leadingParen(ctx, ctx.offsetOf(first.loc), span.start)).indexOf('\n') > 0;
  }
  writeItems(ctx, { items, container: t.loc, newlineFirst, closeRow: ctx.closingRow(t, open, close) });
  ctx.w.write(close);
}

/** Where an item starts counting the parens written around it (OPA's term text includes them). */
function leadingParen(ctx: FormatContext, offset: number, floor: number): number {
  let start = offset;
  for (let k = offset - 1; k > floor; k--) {
    const c = ctx.src[k] as string;
    if (c === '(') start = k;
    else if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') break;
  }
  return start;
}

/** Groups items by source row: one row stays one line; several rows give one line per row, indented, with a trailing comma. */
export function writeItems(ctx: FormatContext, options: { items: Item[]; container: Loc; newlineFirst: boolean; closeRow: number }): void {
  const w = ctx.w;
  const lines = groupByRow(options.items, options.container);
  if (lines.length === 1) {
    for (const c of ctx.comments.pending) {
      if (c.row > options.container.row && c.row < options.closeRow) throw new UnexpectedComment(c.text);
    }
  }
  const multiline = lines.length > 1 || (lines.length === 1 && options.newlineFirst);
  if (multiline) w.startMultiline();
  lines.forEach((line, i) => {
    line.forEach((it, j) => {
      if (j > 0) w.write(', ');
      it.write();
    });
    if (i < lines.length - 1) {
      w.write(',');
      w.endLine();
      w.startLine();
    }
  });
  if (multiline) {
    w.write(',');
    w.endLine();
    ctx.insertComments(options.closeRow);
    w.down();
    w.startLine();
  }
}

export function groupByRow<T extends { loc: Loc }>(items: T[], container: Loc): T[][] {
  const sorted = [...items].sort((a, b) => a.loc.row - b.loc.row || a.loc.col - b.loc.col);
  const lines: T[][] = [];
  let cur: T[] = [];
  let last = container;
  sorted.forEach((it, i) => {
    if (it.loc.row - last.row > 0 && i > 0) {
      lines.push(cur);
      cur = [];
    }
    last = it.loc;
    cur.push(it);
  });
  lines.push(cur);
  return lines;
}

function writeComprehension(ctx: FormatContext, t: Term, head: Term, body: Body, open: string, close: string, headRow = head.loc.row): void {
  if (headRow - t.loc.row >= 1) {
    ctx.w.endLine();
    ctx.w.startLine();
  }
  writeTermParens(ctx, head, isUnionCall(head));
  ctx.w.write(' |');
  writeComprehensionBody(ctx, { body, headRow, closeRow: ctx.closingRow(t, open, close) });
}

/** A comprehension or `every` body: inline with `; ` when on one line, else one expression per line. */
export function writeComprehensionBody(ctx: FormatContext, options: { body: Body; headRow: number; closeRow: number }): void {
  const { body, headRow } = options;
  const w = ctx.w;
  const lines = groupByRow(body, { file: '', row: headRow, col: 0 });
  const firstRow = body[0]?.loc.row ?? headRow;
  if (firstRow - headRow > 0 || lines.length > 1) {
    w.endLine();
    w.up();
    ctx.exprs.body(ctx, body);
    ctx.insertComments(options.closeRow);
    w.down();
    w.startLine();
    return;
  }
  w.write(' ');
  body.forEach((e, i) => {
    if (i > 0) w.write('; ');
    ctx.exprs.expr(ctx, e);
  });
  ctx.insertComments(options.closeRow);
}
