/**
 * Writing rule bodies and expressions: one expression per line (a blank
 * line kept where the source had one), `not`, `some`, `every`, infix
 * calls and `with` modifiers (kept on the line, or indented below when
 * written on their own lines).
 */
import type { Body, CallExpr, EveryExpr, Expr, SomeExpr, Term, With } from '../ast.js';
import type { FormatContext } from './context.js';
import { infixOf } from './infix.js';
import { writeCallPlain, writeComprehensionBody, writeIn, writeTerm } from './terms.js';

export function writeBody(ctx: FormatContext, body: Body): void {
  const w = ctx.w;
  const first = body[0];
  if (first !== undefined) ctx.insertComments(first.loc.row);
  body.forEach((e, i) => {
    const prev = body[i - 1];
    if (prev !== undefined && e.loc.row > ctx.endRow(prev, prev.loc) + 1) w.blankLine();
    w.startLine();
    writeExpr(ctx, e);
    w.endLine();
  });
}

export function writeExpr(ctx: FormatContext, e: Expr): void {
  const w = ctx.w;
  ctx.insertComments(e.loc.row);
  if (!w.inline) w.startLine();
  if (e.negated) w.write('not ');
  switch (e.kind) {
    case 'some':
      writeSome(ctx, e);
      break;
    case 'every':
      writeEvery(ctx, e);
      break;
    case 'notbody':
      if (e.or !== undefined) {
        writeOrOperand(ctx, e.or.lhs, e.or.explicitLhs);
        w.write(' or ');
        writeOrOperand(ctx, e.or.rhs, e.or.explicitRhs);
        break;
      }
      w.write('not {');
      writeComprehensionBody(ctx, { body: e.body, headRow: e.loc.row, closeRow: ctx.closingRow(e, '{', '}') });
      if (e.body[e.body.length - 1]?.loc.row === e.loc.row) w.write(' ');
      w.write('}');
      break;
    case 'call':
      writeCallExpr(ctx, e);
      break;
    case 'term':
      writeTerm(ctx, e.term);
      break;
  }
  writeWiths(ctx, e);
}

/** An operand of `a or b`, on one line: a `{ ...; ... }` block when written as one, else the expression. */
function writeOrOperand(ctx: FormatContext, body: Body, explicit: boolean): void {
  if (explicit) ctx.w.write('{ ');
  body.forEach((e, i) => {
    if (i > 0) ctx.w.write('; ');
    writeExpr(ctx, e);
  });
  if (explicit) ctx.w.write(' }');
}

function writeCallExpr(ctx: FormatContext, e: CallExpr): void {
  const infix = infixOf(e.op);
  if (infix === 'in') return writeIn(ctx, e.args, false);
  if (infix === undefined) return writeCallPlain(ctx, e.op, e.args);
  const [a, b, out] = e.args as [Term, Term, Term | undefined];
  if (e.args.length === 2) {
    writeTerm(ctx, a);
    ctx.w.write(` ${infix} `);
    writeTerm(ctx, b);
  } else if (e.args.length === 3 && out !== undefined) {
    writeTerm(ctx, out);
    ctx.w.write(' = ');
    writeTerm(ctx, a);
    ctx.w.write(` ${infix} `);
    writeTerm(ctx, b);
  } else writeCallPlain(ctx, e.op, e.args);
}

/** Row where the expression's own text ends, not counting its `with` modifiers. */
function termsEndRow(ctx: FormatContext, e: Expr): number {
  const span = ctx.spanOf(e);
  const first = e.with[0];
  if (span === undefined || first === undefined) return e.loc.row;
  const text = ctx.src.slice(span.start, ctx.offsetOf(first.loc)).trimEnd();
  return ctx.rowOf(span.start + Math.max(text.length - 1, 0));
}

function writeWiths(ctx: FormatContext, e: Expr): void {
  const w = ctx.w;
  let withs = e.with;
  if (withs.length === 0) return;
  let lastRow = termsEndRow(ctx, e);
  const first = withs[0] as With;
  if (first.loc.row === lastRow) {
    writeWith(ctx, first, false);
    lastRow = first.loc.row;
    withs = withs.slice(1);
  }
  let indented = false;
  for (const x of withs) {
    const below = x.loc.row > lastRow;
    if (below) {
      if (!indented) {
        w.up();
        indented = true;
      }
      w.endLine();
      w.startLine();
      lastRow = x.loc.row;
    }
    writeWith(ctx, x, below);
  }
  if (indented) w.down();
}

function writeWith(ctx: FormatContext, x: With, indented: boolean): void {
  ctx.insertComments(x.loc.row);
  if (!indented) ctx.w.write(' ');
  ctx.w.write('with ');
  writeTerm(ctx, x.target);
  ctx.w.write(' as ');
  writeTerm(ctx, x.value);
}

function writeSome(ctx: FormatContext, e: SomeExpr): void {
  const w = ctx.w;
  w.write('some ');
  if (e.inValue !== undefined && e.inDomain !== undefined) {
    writeIn(ctx, e.inKey === undefined ? [e.inValue, e.inDomain] : [e.inKey, e.inValue, e.inDomain], false);
    return;
  }
  let row = e.loc.row;
  e.vars.forEach((v, i) => {
    if (v.loc.row > row) {
      w.endLine();
      w.startLine();
      w.write('\t');
      row = v.loc.row;
    } else if (i > 0) w.write(' ');
    writeTerm(ctx, v);
    if (i < e.vars.length - 1) w.write(',');
  });
}

function writeEvery(ctx: FormatContext, e: EveryExpr): void {
  const w = ctx.w;
  w.write('every ');
  if (e.key !== undefined) {
    writeTerm(ctx, e.key);
    w.write(', ');
  }
  writeTerm(ctx, e.value);
  w.write(' in ');
  writeTerm(ctx, e.domain);
  w.write(' {');
  writeComprehensionBody(ctx, { body: e.body, headRow: e.loc.row, closeRow: ctx.closingRow(e, '{', '}') });
  if (e.body.length === 1 && e.body[0]?.loc.row === e.loc.row) w.write(' ');
  w.write('}');
}
