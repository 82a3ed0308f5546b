/**
 * Writing a module: package, imports (sorted within each group of adjacent
 * lines), rules separated by one blank line (adjacent one-line rules stay
 * grouped), rule heads with `:=`, `contains` and `if`, and `else` chains.
 */
import type { Expr, Head, Import, Module, Rule, Term } from '../ast.js';
import { KEYWORDS } from '../parser-terms.js';
import type { FormatContext } from './context.js';
import { writeBody, writeExpr } from './exprs.js';
import { writeItems, writeRef, writeTerm } from './terms.js';

export function writeModule(ctx: FormatContext, module: Module): void {
  const w = ctx.w;
  ctx.insertComments(module.package.loc.row);
  w.startLine();
  const [, first, ...rest] = module.package.path.terms;
  w.write('package ');
  if (first !== undefined && first.type === 'string') writeRef(ctx, [{ type: 'var', name: first.value, loc: first.loc }, ...rest]);
  w.blankLine();
  writeImports(ctx, dropRedundantImports(module.imports));
  writeRules(ctx, module.rules);
  const left = ctx.comments.pending;
  ctx.comments.pending = [];
  left.forEach((c, i) => {
    w.writeLine(c.text);
    if (i === left.length - 1) w.write('\n');
  });
}

function importNames(imp: Import): string[] {
  return imp.path.terms.map((t) => (t.type === 'var' ? t.name : t.type === 'string' ? t.value : ''));
}

/** With `import rego.v1`, `future.keywords` imports say nothing more and are dropped (as `opa fmt` does). */
function dropRedundantImports(imports: Import[]): Import[] {
  const v1 = imports.some((i) => importNames(i).join('.') === 'rego.v1');
  return v1 ? imports.filter((i) => importNames(i)[0] !== 'future') : imports;
}

/** Orders imports as OPA compares refs: the head var, then each string operand, shorter first; then the alias. */
function compareImports(a: Import, b: Import): number {
  const x = importNames(a);
  const y = importNames(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const c = compareStrings(x[i] as string, y[i] as string);
    if (c !== 0) return c;
  }
  return x.length - y.length || compareStrings(a.alias ?? '', b.alias ?? '');
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function writeImports(ctx: FormatContext, imports: Import[]): void {
  const w = ctx.w;
  const trailing = new Map<Import, string>();
  ctx.comments.pending = ctx.comments.pending.filter((c) => {
    const imp = imports.find((i) => i.loc.row === c.row);
    if (imp === undefined) return true;
    trailing.set(imp, c.text);
    return false;
  });
  const groups: Import[][] = [];
  for (const imp of imports) {
    const group = groups[groups.length - 1];
    const last = group?.[group.length - 1];
    if (group === undefined || last === undefined || imp.loc.row - last.loc.row > 1) groups.push([imp]);
    else group.push(imp);
  }
  for (const group of groups) {
    ctx.insertComments((group[0] as Import).loc.row);
    for (const imp of [...group].sort(compareImports)) {
      w.startLine();
      w.write('import ');
      writeRef(ctx, imp.path.terms);
      if (imp.alias !== undefined) w.write(' as ' + imp.alias);
      const c = trailing.get(imp);
      if (c !== undefined) w.write(' ' + c);
      w.endLine();
    }
    w.blankLine();
  }
}

function writeRules(ctx: FormatContext, rules: Rule[]): void {
  const refHeads = rules.some((r) => r.head.ref.length > 2 || (r.head.ref.length === 2 && r.head.key !== undefined && r.head.value === undefined));
  rules.forEach((rule, i) => {
    ctx.insertComments(rule.loc.row);
    writeRule(ctx, { rule, isElse: false, refHeads });
    const next = rules[i + 1];
    if (next !== undefined && groupable(ctx, rule) && groupable(ctx, next) && next.loc.row === rule.loc.row + 1) return;
    ctx.w.blankLine();
  });
}

/**
 * Adjacent rules both written on one line (one expression, no `else`, not a
 * lone set term that keeps its braces) are kept without a blank line between.
 */
function groupable(ctx: FormatContext, rule: Rule): boolean {
  const first = rule.body[0];
  if (rule.body.length > 1 || rule.default || rule.else !== undefined || (first !== undefined && isSetTermExpr(first))) return false;
  return ctx.endRow(rule, rule.loc) === rule.loc.row;
}

/** The body OPA reads as "no body": a lone `true`. */
function isTrueBody(body: Expr[]): boolean {
  const e = body[0];
  return body.length === 1 && e !== undefined && e.kind === 'term' && !e.negated && e.with.length === 0 && e.term.type === 'boolean' && e.term.value;
}

function isSetTermExpr(e: Expr): boolean {
  return e.kind === 'term' && !e.negated && e.term.type === 'set';
}

interface RuleOptions {
  rule: Rule;
  isElse: boolean;
  refHeads: boolean;
}

function writeRule(ctx: FormatContext, options: RuleOptions): void {
  const { rule, isElse } = options;
  const w = ctx.w;
  if (!isElse) w.startLine();
  if (rule.default) w.write('default ');
  const expandedConst = isTrueBody(rule.body) && rule.else === undefined;
  writeHead(ctx, { ...options, expandedConst });
  if (rule.body.length === 0 || expandedConst) {
    w.endLine();
    return;
  }
  w.write(' if');
  const first = rule.body[0] as Expr;
  if (rule.body.length === 1 && first.loc.row === ctx.endRow(rule.head, rule.head.loc) && !isSetTermExpr(first)) {
    w.write(' ');
    writeExpr(ctx, first);
    w.endLine();
    if (rule.else !== undefined) writeElse(ctx, options);
    return;
  }
  w.write(' {');
  w.endLine();
  w.up();
  writeBody(ctx, rule.body);
  const skip: [string, string] | undefined =
    rule.head.args !== undefined && rule.head.args.length > 0 ? ['(', ')'] : rule.head.key !== undefined ? ['[', ']'] : undefined;
  ctx.insertComments(ctx.closingRow(rule, '{', '}', skip));
  w.down();
  w.startLine();
  w.write('}');
  if (rule.else !== undefined) writeElse(ctx, options);
}

function writeElse(ctx: FormatContext, options: RuleOptions): void {
  const { rule } = options;
  const w = ctx.w;
  const elseRule = rule.else as Rule;
  // `} else` stays on the closing line when written so; an else on its own line stays there.
  const lines = (ctx.textOf(rule) ?? '').split('\n');
  const rel = elseRule.loc.row - rule.loc.row;
  const wasInline = rel > 0 && rel < lines.length && !(lines[rel] as string).trim().startsWith('else');
  const nextComment = ctx.comments.pending[0];
  const commentAbove = (nextComment !== undefined && nextComment.row < elseRule.head.loc.row) || w.lineEnd !== undefined;
  if (!commentAbove && wasInline) w.write(' ');
  else {
    w.blankLine();
    w.startLine();
  }
  ctx.insertComments(elseRule.head.loc.row);
  if (commentAbove && !wasInline) w.startLine();
  writeRule(ctx, { ...options, rule: elseRule, isElse: true });
}

function writeHead(ctx: FormatContext, options: RuleOptions & { expandedConst: boolean }): void {
  const { rule, isElse, expandedConst } = options;
  const head: Head = rule.head;
  const w = ctx.w;
  if (isElse) w.write('else');
  else if (options.refHeads || head.ref.length === 1 || (head.ref[0]?.type === 'var' && KEYWORDS.has(head.ref[0].name))) {
    // A keyword head (`as.foo := 1`) only parses in the dotted form.
    writeRef(ctx, head.ref);
  } else {
    const [name, key] = head.ref as [Term, Term];
    writeRef(ctx, [name]);
    w.write('[' + (key.type === 'string' ? JSON.stringify(key.value) : (ctx.textOf(key) ?? '')) + ']');
  }
  if (!isElse && head.args !== undefined && head.args.length > 0) {
    w.write('(');
    const items = head.args.map((a) => ({ loc: a.loc, write: () => writeTerm(ctx, a) }));
    writeItems(ctx, { items, container: head.loc, newlineFirst: false, closeRow: ctx.closingRow(head, '(', ')') });
    w.write(')');
  }
  if (head.key !== undefined && head.value === undefined) {
    w.write(' contains ');
    writeTerm(ctx, head.key);
  }
  const v = head.value;
  if (v === undefined) return;
  const isTrue = v.type === 'boolean' && v.value;
  if (!(head.key !== undefined || !isTrue || expandedConst || rule.default)) return;
  const refConst = expandedConst && head.key === undefined && (head.args === undefined || head.args.length === 0);
  // A `true` value the parser filled in (it shares the head's location) is not written.
  if (v.loc === head.loc && !isElse && isTrue && !refConst) return;
  w.write(' := ');
  writeTerm(ctx, v);
}
