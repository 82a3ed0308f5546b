/**
 * `opa test`'s two reports of test results: the pretty text (a `file:row:`
 * line and `data.pkg.test_x: FAIL (1.2ms)` per shown test, the cases of a
 * parameterised test indented beneath, print output, with `-v` the FAILURES
 * section with traces, then the PASS/FAIL/SKIPPED/ERROR counts) and the JSON
 * array of `--format=json`.
 */
import { goTraceEvents } from '../trace/go-event-json.js';
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

const RULE = '-'.repeat(80);

function resultLine(r: PolicyTestResult): string {
  return r.outcome === 'skip' ? `${r.name}: SKIPPED` : `${r.name}: ${OUTCOME[r.outcome]} (${goDuration(r.durationNs)})`;
}

function caseLines(cases: readonly PolicyTestCase[], depth: number, verbose: boolean, out: string[]): void {
  for (const c of cases) {
    if (c.fail || verbose) out.push(`${'  '.repeat(depth + 1)}${c.name}: ${c.fail ? 'FAIL' : 'PASS'}`);
    caseLines(c.cases, depth + 1, verbose, out);
  }
}

/** Each failed case that has no cases of its own, named by its whole lineage (`x: FAIL`, then `  2: FAIL`), as OPA lists them under FAILURES. */
function failedCaseLines(cases: readonly PolicyTestCase[], lineage: readonly string[], out: string[]): void {
  for (const c of cases) {
    const names = [...lineage, c.name];
    if (c.fail && c.cases.length === 0) names.forEach((n, i) => out.push(`${'  '.repeat(i + 1)}${n}: FAIL`));
    failedCaseLines(c.cases, names, out);
  }
}

/** Go's `strings.TrimSpace`: Unicode white space at both ends (U+0085 and U+2028 included, U+FEFF not). */
const GO_TRIM =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

/**
 * OPA's PrettyReporter. Each test that did not pass (every test with
 * `verbose`) as `file:row:` and `data.pkg.test_x: FAIL (1.2ms)`, the cases of
 * a parameterised test beneath, what it printed (trimmed, indented, between
 * blank lines) and an error's message. With `verbose` and a test failed, the
 * FAILURES section: each failed test again, its trace indented beneath (see
 * `runPolicyTests`' `explain`), a parameterised test's failed cases. Then the
 * PASS/FAIL/SKIPPED/ERROR counts. `clean` is applied to what the policies
 * wrote: error messages, printed lines and trace lines.
 */
export function prettyReport(report: PolicyTestReport, options: { verbose: boolean; clean?: (text: string) => string }): string[] {
  const clean = options.clean ?? ((text: string) => text);
  const out: string[] = [];
  let lastFile = '';
  let dirty = false;
  for (const r of report.results) {
    if (options.verbose || r.outcome !== 'pass') {
      if (lastFile !== '' && lastFile !== r.file) out.push('');
      out.push(`${r.file}:${r.row}:`);
      lastFile = r.file;
      dirty = true;
      out.push(resultLine(r));
      if (r.cases !== undefined) caseLines(r.cases, 0, options.verbose, out);
      if (r.output !== undefined) {
        out.push(
          '',
          ...r.output
            .replace(GO_TRIM, '')
            .split('\n')
            .map((line) => `  ${clean(line)}`),
          '',
        );
      }
    }
    if (r.outcome === 'error' && r.detail !== undefined) out.push(`  ${clean(r.detail)}`);
  }
  if (options.verbose && report.failed > 0) {
    out.push(RULE, 'FAILURES', RULE);
    for (const r of report.results) {
      if (r.outcome !== 'fail') continue;
      out.push(resultLine(r), '', ...(r.trace ?? []).map((line) => `  ${clean(line)}`));
      if (r.cases !== undefined && r.cases.length > 0) {
        out.push('');
        failedCaseLines(r.cases, [], out);
      }
      out.push('');
    }
  }
  if (dirty) out.push(RULE);
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

/** OPA's JSONReporter: one object per test, in OPA's field order; `trace` holds the test's events as OPA's Go events marshal. */
export function jsonReport(report: PolicyTestReport): unknown[] {
  return report.results.map((r) => ({
    ...(r.outcome === 'error' ? { error: { code: r.errorCode ?? 'eval_error', message: r.detail ?? '' } } : {}),
    location: { file: r.file, row: r.row, col: r.col },
    ...(r.cases !== undefined && r.cases.length > 0 ? { sub_results: subResultsJson(r.cases) } : {}),
    package: r.package,
    name: r.rule,
    ...(r.traceEvents === undefined ? {} : { trace: goTraceEvents(r.traceEvents) }),
    // A Go []byte: base64.
    ...(r.output === undefined ? {} : { output: Buffer.from(r.output).toString('base64') }),
    duration: r.durationNs,
    ...(r.outcome === 'fail' ? { fail: true } : {}),
    ...(r.outcome === 'skip' ? { skip: true } : {}),
  }));
}
