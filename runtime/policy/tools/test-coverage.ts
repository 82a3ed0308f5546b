import type { Body, Expr, Module, Rule, Term } from '../ast.js';

/** A run of lines, as OPA reports them (`{"start": {"row": 3}, "end": {"row": 5}}`). */
export interface LineRange {
  start: { row: number };
  end: { row: number };
}

/** One file in OPA's coverage report; empty lists are left out, as OPA does. */
export interface FileCoverage {
  covered?: LineRange[];
  not_covered?: LineRange[];
  covered_lines?: number;
  not_covered_lines?: number;
  coverage: number;
}

/** The shape of `opa test --coverage --format json`. */
export interface CoverageReport {
  files: Record<string, FileCoverage>;
  covered_lines?: number;
  not_covered_lines?: number;
  coverage: number;
}

/**
 * Builds OPA's coverage report: the coverable lines of a module are those of
 * its rule heads and body expressions (nested bodies included); a line is
 * covered when `hits` (`file:row`, from a policy compiled with `coverage`) holds it.
 */
export function coverageReport(modules: ReadonlyArray<{ id: string; module: Module }>, hits: ReadonlySet<string>): CoverageReport {
  const files: Record<string, FileCoverage> = {};
  let covered = 0;
  let notCovered = 0;
  for (const { id, module } of modules) {
    const rows = new Set<number>();
    for (const rule of module.rules) ruleRows(rule, rows);
    const yes: number[] = [];
    const no: number[] = [];
    for (const row of [...rows].sort((a, b) => a - b)) (hits.has(`${id}:${row}`) ? yes : no).push(row);
    covered += yes.length;
    notCovered += no.length;
    files[id] = {
      ...(yes.length > 0 ? { covered: ranges(yes) } : {}),
      ...(no.length > 0 ? { not_covered: ranges(no) } : {}),
      ...(yes.length > 0 ? { covered_lines: yes.length } : {}),
      ...(no.length > 0 ? { not_covered_lines: no.length } : {}),
      coverage: percent(yes.length, no.length),
    };
  }
  return {
    files,
    ...(covered > 0 ? { covered_lines: covered } : {}),
    ...(notCovered > 0 ? { not_covered_lines: notCovered } : {}),
    coverage: percent(covered, notCovered),
  };
}

/** OPA rounds to two decimals; a file with nothing to cover counts as fully covered. */
function percent(yes: number, no: number): number {
  if (yes + no === 0) return 100;
  return Math.round((yes / (yes + no)) * 10000) / 100;
}

function ranges(rows: number[]): LineRange[] {
  const out: LineRange[] = [];
  for (const row of rows) {
    const last = out[out.length - 1];
    if (last && last.end.row === row - 1) last.end.row = row;
    else out.push({ start: { row }, end: { row } });
  }
  return out;
}

function ruleRows(rule: Rule, rows: Set<number>): void {
  rows.add(rule.head.loc.row);
  bodyRows(rule.body, rows);
  if (rule.else) ruleRows(rule.else, rows);
}

function bodyRows(body: Body, rows: Set<number>): void {
  for (const e of body) exprRows(e, rows);
}

function exprRows(e: Expr, rows: Set<number>): void {
  rows.add(e.loc.row);
  switch (e.kind) {
    case 'term':
      termRows(e.term, rows);
      break;
    case 'call':
      for (const a of e.args) termRows(a, rows);
      break;
    case 'every':
    case 'notbody':
      bodyRows(e.body, rows);
      break;
    case 'some':
      break;
  }
}

function termRows(t: Term, rows: Set<number>): void {
  switch (t.type) {
    case 'arraycomp':
    case 'setcomp':
    case 'objectcomp':
      bodyRows(t.body, rows);
      break;
    case 'array':
    case 'set':
      for (const x of t.items) termRows(x, rows);
      break;
    case 'object':
      for (const [k, v] of t.entries) {
        termRows(k, rows);
        termRows(v, rows);
      }
      break;
    case 'ref':
      for (const x of t.terms) termRows(x, rows);
      break;
    case 'call':
      for (const x of t.args) termRows(x, rows);
      break;
    default:
      break;
  }
}
