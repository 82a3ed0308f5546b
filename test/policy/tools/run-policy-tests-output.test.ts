/**
 * What runPolicyTests keeps of a test beyond its outcome: its print output,
 * bounded per test, and, with `explain`, the trace of a failed test (never of
 * a passing one), bounded by the recorder's event limit.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPolicySet } from '../../../runtime/policy/tools/load-policies.js';
import { MAX_TEST_OUTPUT, runPolicyTests } from '../../../runtime/policy/tools/run-policy-tests.js';
import { explainEvents, failsAndNotes } from '../../../runtime/policy/trace/lineage.js';
import { MAX_TRACE_EVENTS } from '../../../runtime/policy/trace/trace-recorder.js';

async function run(source: string, explain = failsAndNotes) {
  const dir = mkdtempSync(join(tmpdir(), 'fw-policy-tests-'));
  writeFileSync(join(dir, 't_test.rego'), source);
  return runPolicyTests(await loadPolicySet([dir]), { explain });
}

describe('runPolicyTests: output and traces', () => {
  it('keeps each print as a line, traces only the failed tests', async () => {
    const report = await run('package t_test\n\ntest_ok if print("a", {1}, [2])\n\ntest_no if {\n\tprint("b")\n\tfalse\n}\n');
    expect(report.results.map((r) => [r.rule, r.output, r.trace?.length])).toEqual([
      ['test_ok', 'a {1} [2]\n', undefined],
      ['test_no', 'b\n', 4],
    ]);
  });

  it('cuts print output past its bound, saying so', async () => {
    const report = await run('package t_test\n\ntest_loud if {\n\tevery i in numbers.range(1, 120000) { print("0123456789") }\n}\n');
    const output = report.results[0]?.output ?? '';
    expect(output.length).toBeLessThanOrEqual(MAX_TEST_OUTPUT + 64);
    expect(output.endsWith(`(print output cut at ${MAX_TEST_OUTPUT} characters)\n`)).toBe(true);
    expect(report.results[0]?.outcome).toBe('pass');
  });

  it('shows what a trace recorded before its event limit, and says it was cut', async () => {
    const full = (events: Parameters<typeof failsAndNotes>[0]) => explainEvents({ events, mode: 'full' });
    const report = await run('package t_test\n\ntest_long if {\n\tevery i in numbers.range(1, 40000) { i > 0 }\n\tfalse\n}\n', full);
    const trace = report.results[0]?.trace ?? [];
    expect(report.results[0]?.outcome).toBe('fail');
    expect(trace).toHaveLength(MAX_TRACE_EVENTS + 1);
    expect(trace.at(-1)).toBe(`(trace cut at ${MAX_TRACE_EVENTS} events)`);
  });
});
