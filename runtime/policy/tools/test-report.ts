/**
 * `opa test`'s two reports of test results: the pretty text (a `file:row:`
 * line and `data.pkg.test_x: FAIL (1.2ms)` per shown test, the cases of a
 * parameterised test indented beneath, then the PASS/FAIL/SKIPPED/ERROR
 * counts) and the JSON array of `--format=json`.
 */
import type { PolicyTestCase, PolicyTestReport, PolicyTestResult } from './run-policy-tests.js';

/** A duration as Go's `time.Duration.String()` writes it (`0s`, `512ns`, `1.5µs`, `2.25ms`, `1.000001s`). */
export function goDuration(ns: number): string {
  const n = Math.max(0, Math.round(ns));
  if (n === 0) return '0s';
  const scaled = (unit: number, digits: number): string => {
    const whole = Math.floor(n / unit);
    const frac = String(n % unit)
      .padStart(digits, '0')
      .replace(/0+$/, '');
    return frac === '' ? String(whole) : `${whole}.${frac}`;
  };
  if (n < 1e3) return `${n}ns`;
  if (n < 1e6) return `${scaled(1e3, 3)}µs`;
  if (n < 1e9) return `${scaled(1e6, 6)}ms`;
  const totalSeconds = Math.floor(n / 1e9);
  if (totalSeconds < 60) return `${scaled(1e9, 9)}s`;
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = scaled(1e9, 9).replace(/^\d+/, String(totalSeconds % 60));
  return `${h > 0 ? `${h}h` : ''}${m}m${s}s`;
}

const OUTCOME = { pass: 'PASS', fail: 'FAIL', error: 'ERROR', skip: 'SKIPPED' } as const;

function caseLines(cases: readonly PolicyTestCase[], depth: number, verbose: boolean, out: string[]): void {
  for (const c of cases) {
    if (c.fail || verbose) out.push(`${'  '.repeat(depth + 1)}${c.name}: ${c.fail ? 'FAIL' : 'PASS'}`);
    caseLines(c.cases, depth + 1, verbose, out);
  }
}

/** OPA's PrettyReporter (without traces): passing tests only with `verbose`. */
export function prettyReport(report: PolicyTestReport, options: { verbose: boolean; detail?: (r: PolicyTestResult) => string | undefined }): string[] {
  const out: string[] = [];
  let lastFile = '';
  let dirty = false;
  for (const r of report.results) {
    if (options.verbose || r.outcome !== 'pass') {
      if (lastFile !== '' && lastFile !== r.file) out.push('');
      out.push(`${r.file}:${r.row}:`);
      lastFile = r.file;
      dirty = true;
      out.push(r.outcome === 'skip' ? `${r.name}: SKIPPED` : `${r.name}: ${OUTCOME[r.outcome]} (${goDuration(r.durationNs)})`);
      if (r.cases !== undefined) caseLines(r.cases, 0, options.verbose, out);
    }
    if (r.outcome === 'error' && r.detail !== undefined) out.push(`  ${options.detail?.(r) ?? r.detail}`);
  }
  if (dirty) out.push('-'.repeat(80));
  const total = report.passed + report.failed + report.skipped + report.errors;
  if (report.passed) out.push(`PASS: ${report.passed}/${total}`);
  if (report.failed) out.push(`FAIL: ${report.failed}/${total}`);
  if (report.skipped) out.push(`SKIPPED: ${report.skipped}/${total}`);
  if (report.errors) out.push(`ERROR: ${report.errors}/${total}`);
  return out;
}

function subResultsJson(cases: readonly PolicyTestCase[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of cases) {
    out[c.name] = { ...(c.cases.length > 0 ? { sub_results: subResultsJson(c.cases) } : {}), name: c.name, ...(c.fail ? { fail: true } : {}) };
  }
  return out;
}

/** OPA's JSONReporter: one object per test, in OPA's field order. */
export function jsonReport(report: PolicyTestReport): unknown[] {
  return report.results.map((r) => ({
    ...(r.outcome === 'error' ? { error: { code: r.errorCode ?? 'eval_error', message: r.detail ?? '' } } : {}),
    location: { file: r.file, row: r.row, col: r.col },
    ...(r.cases !== undefined && r.cases.length > 0 ? { sub_results: subResultsJson(r.cases) } : {}),
    package: r.package,
    name: r.rule,
    duration: r.durationNs,
    ...(r.outcome === 'fail' ? { fail: true } : {}),
    ...(r.outcome === 'skip' ? { skip: true } : {}),
  }));
}
