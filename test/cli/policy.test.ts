import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runCliInProcess } from '../support/cli.js';

function tempDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'fw-policy-cli-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('framework-cli policy check', () => {
  it('passes the shipped policies', async () => {
    const { code, stdout } = await runCliInProcess(['policy', 'check', 'policies']);
    expect(code).toBe(0);
    expect(stdout).toContain('4 module(s) compiled without errors.');
  });

  it('reports errors as file:line:col and exits 1, also as JSON', async () => {
    // As in OPA, parse errors are reported first; compile errors once every file parses.
    const unparsable = tempDir({ 'worse.rego': 'package worse\n\nallow if {\n' });
    const parse = await runCliInProcess(['policy', 'check', unparsable]);
    expect(parse.code).toBe(1);
    expect(parse.stderr).toMatch(new RegExp(`${unparsable}/worse.rego:\\d+:\\d+: rego_parse_error`));
    const dir = tempDir({ 'bad.rego': 'package bad\n\nimport rego.v1\n\nallow if { x > 1 }\n' });
    const text = await runCliInProcess(['policy', 'check', dir]);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain(`${dir}/bad.rego:5:12: rego_unsafe_var_error: var x is unsafe`);
    const json = await runCliInProcess(['policy', 'check', dir, '--json']);
    expect(json.code).toBe(1);
    const body = JSON.parse(json.stdout) as { ok: boolean; errors: { code: string; file: string; row: number; col: number }[] };
    expect(body.ok).toBe(false);
    expect(body.errors).toContainEqual({ code: 'rego_unsafe_var_error', message: 'var x is unsafe', file: `${dir}/bad.rego`, row: 5, col: 12 });
  });

  it('reports the type errors OPA reports when compiling, in check, eval, test and serve', async () => {
    const dir = tempDir({ 'typed.rego': 'package typed\n\nlabels := {"k": 1}\n\nx := 1 + "a"\n\nq := labels.zz\n\ntest_x if x\n' });
    const plus = `${dir}/typed.rego:5:6: rego_type_error: plus: invalid argument(s)\n\thave: (number, string, ???)\n\twant: (x: number, y: number, z: number)`;
    const check = await runCliInProcess(['policy', 'check', dir]);
    expect(check.code).toBe(1);
    expect(check.stderr).toContain(plus);
    expect(check.stderr).toContain(
      `${dir}/typed.rego:7:6: rego_type_error: undefined ref: data.typed.labels.zz\n\tdata.typed.labels.zz\n\t                  ^`,
    );
    const evaluated = await runCliInProcess(['policy', 'eval', '-d', dir, 'data.typed']);
    expect(evaluated.code).not.toBe(0);
    expect(evaluated.stderr).toContain('rego_type_error: plus: invalid argument(s)');
    const tested = await runCliInProcess(['policy', 'test', dir]);
    expect(tested.code).not.toBe(0);
    expect(tested.stderr + tested.stdout).toContain('rego_type_error: plus: invalid argument(s)');
    const served = await runCli(['policy', 'serve', dir, '--addr', '127.0.0.1:0']);
    expect(served.code).toBe(1);
    expect(served.stderr).toContain('rego_type_error: plus: invalid argument(s)');
  });
});

describe('framework-cli policy test', () => {
  it('runs every test_ rule of the shipped policies', async () => {
    const { code, stdout } = await runCliInProcess(['policy', 'test', 'policies', '-v']);
    expect(code).toBe(0);
    expect(stdout).toContain('data.a2a_access_test.test_untrusted_may_not_call_database: PASS');
    expect(stdout).toContain('data.trading_test.test_rate_limit: PASS');
    expect(stdout).toMatch(/PASS: 18\/18/);
  });

  it('exits 2 (as opa test) on a failing test; --json lists results', async () => {
    const dir = tempDir({
      'p.rego': 'package p\n\nimport rego.v1\n\nx := 1\n',
      'p_test.rego': 'package p_test\n\nimport rego.v1\n\ntest_ok if data.p.x == 1\n\ntest_wrong if data.p.x == 2\n\ntest_value := 7\n',
    });
    const text = await runCliInProcess(['policy', 'test', dir]);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('data.p_test.test_wrong: FAIL');
    expect(text.stdout).toContain('PASS: 1/3');
    expect(text.stdout).toContain('FAIL: 2/3');
    const json = await runCliInProcess(['policy', 'test', dir, '--json', '--run', 'test_value']);
    expect(json.code).toBe(2);
    const report = JSON.parse(json.stdout) as { results: { name: string; outcome: string; detail: string }[] };
    expect(report.results).toEqual([expect.objectContaining({ name: 'data.p_test.test_value', outcome: 'fail', detail: '7' })]);
  });
});

describe("framework-cli policy test, as OPA's tester runs and lists tests", () => {
  const TESTS = [
    'package p_test',
    '',
    'x := 1',
    '',
    'test_dup if x == 1',
    '',
    'test_dup if x == 2',
    '',
    'test_dup if x == 1',
    '',
    'todo_test_later if false',
    '',
    'test_cases[tc.note] if {',
    '\tsome tc in [{"note": "one", "v": 1}, {"note": "two", "v": 2}, {"note": "three", "v": 1}]',
    '\ttc.v == x',
    '}',
    '',
    'test_nested[a][b] if {',
    '\tsome a in ["x", "y"]',
    '\tsome b in [1, 2]',
    '\tb == 1',
    '}',
    '',
  ].join('\n');

  it('runs a name defined twice as two tests (test_x#01), skips todo_test_*, lists the cases of test_x[case]', async () => {
    const dir = tempDir({ 'p_test.rego': TESTS });
    const { code, stdout } = await runCliInProcess(['policy', 'test', dir, '-v']);
    expect(code).toBe(2);
    const lines = stdout
      .replace(/\(\d+(\.\d+)?(ns|µs|ms|s)\)/g, '(T)')
      .trimEnd()
      .split('\n');
    expect(lines).toEqual([
      'p_test.rego:5:',
      'data.p_test.test_dup: PASS (T)',
      'p_test.rego:7:',
      'data.p_test.test_dup#01: FAIL (T)',
      'p_test.rego:9:',
      'data.p_test.test_dup#02: PASS (T)',
      'p_test.rego:11:',
      'data.p_test.todo_test_later: SKIPPED',
      'p_test.rego:13:',
      'data.p_test.test_cases: FAIL (T)',
      '  one: PASS',
      '  three: PASS',
      '  two: FAIL',
      'p_test.rego:18:',
      'data.p_test.test_nested: FAIL (T)',
      '  x: FAIL',
      '    1: PASS',
      '    2: FAIL',
      '  y: FAIL',
      '    1: PASS',
      '    2: FAIL',
      // -v: OPA's FAILURES section, each failed test again with the trace of its failed expressions (each PrettyTrace
      // sized on its own lines: widest location + 4, then a space), a parameterised test's failed cases by lineage.
      '-'.repeat(80),
      'FAILURES',
      '-'.repeat(80),
      'data.p_test.test_dup#01: FAIL (T)',
      '',
      '  query:1           Enter data.p_test["test_dup#01"] = _',
      '  p_test.rego:7     | Enter data.p_test["test_dup#01"]',
      '  p_test.rego:7     | | Fail data.p_test.x = 2',
      '  query:1           | Fail data.p_test["test_dup#01"] = _',
      '',
      'data.p_test.test_cases: FAIL (T)',
      '',
      '  query:1            Enter data.p_test.test_cases = _',
      '  p_test.rego:13     | Redo data.p_test.test_cases',
      '  p_test.rego:15     | | Fail tc.v = data.p_test.x',
      '',
      '  two: FAIL',
      '',
      'data.p_test.test_nested: FAIL (T)',
      '',
      '  query:1            Enter data.p_test.test_nested = _',
      '  p_test.rego:18     | Redo data.p_test.test_nested',
      '  p_test.rego:21     | | Fail b = 1',
      '  p_test.rego:18     | Redo data.p_test.test_nested',
      '  p_test.rego:21     | | Fail b = 1',
      '',
      '  x: FAIL',
      '    2: FAIL',
      '  y: FAIL',
      '    2: FAIL',
      '',
      '-'.repeat(80),
      'PASS: 6/11',
      'FAIL: 4/11',
      'SKIPPED: 1/11',
    ]);
  });

  const TRACED = {
    'p.rego': 'package p\n\ndeny if input.run.workspace.auto_apply\n',
    'p_test.rego': [
      'package p_test',
      '',
      'import data.p',
      '',
      'test_ok if {',
      '\tprint("fine")',
      '\tnot p.deny with input as {"run": {"workspace": {"auto_apply": false}}}',
      '}',
      '',
      'test_auto_apply if {',
      '\tprint("checking", input.run)',
      '\ttrace("no auto apply")',
      '\tnot p.deny with input as {"run": {"workspace": {"auto_apply": true}}}',
      '}',
      '',
      'test_value := 7',
      '',
    ].join('\n'),
  };
  const timeless = (text: string) =>
    text
      .replace(/\(\d+(\.\d+)?(ns|µs|ms|s)\)/g, '(T)')
      .trimEnd()
      .split('\n');

  it('prints what a shown test printed, and with -v the trace of each failed test after the list (FAILURES), as opa test -v', async () => {
    const dir = tempDir(TRACED);
    const verbose = await runCliInProcess(['policy', 'test', dir, '-v']);
    expect(verbose.code).toBe(2);
    expect(timeless(verbose.stdout)).toEqual([
      'p_test.rego:5:',
      'data.p_test.test_ok: PASS (T)',
      '',
      '  fine',
      '',
      'p_test.rego:10:',
      'data.p_test.test_auto_apply: FAIL (T)',
      '',
      // print() of an undefined argument: <undefined>, as OPA's print hook writes it.
      '  checking <undefined>',
      '',
      'p_test.rego:16:',
      'data.p_test.test_value: FAIL (T)',
      '-'.repeat(80),
      'FAILURES',
      '-'.repeat(80),
      'data.p_test.test_auto_apply: FAIL (T)',
      '',
      // Without --explain, -v keeps the Fail and Note events, each after the Enter events that led to it.
      '  query:1            Enter data.p_test.test_auto_apply = _',
      '  p_test.rego:10     | Enter data.p_test.test_auto_apply',
      // print's argument input.run is undefined: the comprehension OPA wraps it in fails.
      '  p_test.rego:11     | | Enter __local2__ = input.run',
      '  p_test.rego:11     | | | Fail __local2__ = input.run',
      '  p_test.rego:12     | | Note "no auto apply"',
      '  p_test.rego:13     | | Fail not data.p.deny with input as {"run": {"workspace": {"auto_apply": true}}}',
      '  query:1            | Fail data.p_test.test_auto_apply = _',
      '',
      // A test whose value is not true fails with no Fail event: an empty trace.
      'data.p_test.test_value: FAIL (T)',
      '',
      '',
      '-'.repeat(80),
      'PASS: 1/3',
      'FAIL: 2/3',
    ]);
    // Without -v: no FAILURES section, a passing test's output is not shown, a failing one's is.
    const plain = await runCliInProcess(['policy', 'test', dir]);
    expect(timeless(plain.stdout)).toEqual([
      'p_test.rego:10:',
      'data.p_test.test_auto_apply: FAIL (T)',
      '',
      '  checking <undefined>',
      '',
      'p_test.rego:16:',
      'data.p_test.test_value: FAIL (T)',
      '-'.repeat(80),
      'PASS: 1/3',
      'FAIL: 2/3',
    ]);
  });

  it('--explain picks the events of the trace (notes, fails, full) and implies -v, as opa test --explain', async () => {
    const dir = tempDir(TRACED);
    const failures = (stdout: string) => {
      const lines = timeless(stdout);
      return lines.slice(lines.indexOf('FAILURES') + 2, lines.indexOf('data.p_test.test_value: FAIL (T)', lines.indexOf('FAILURES')));
    };
    const notes = await runCliInProcess(['policy', 'test', dir, '--explain=notes']);
    expect(notes.stdout).toContain('data.p_test.test_ok: PASS');
    expect(failures(notes.stdout)).toEqual([
      'data.p_test.test_auto_apply: FAIL (T)',
      '',
      '  query:1            Enter data.p_test.test_auto_apply = _',
      '  p_test.rego:10     | Enter data.p_test.test_auto_apply',
      '  p_test.rego:12     | | Note "no auto apply"',
      '',
    ]);
    const fails = failures((await runCliInProcess(['policy', 'test', dir, '--explain', 'fails'])).stdout);
    expect(fails.filter((l) => l.includes('Note'))).toEqual([]);
    expect(fails.filter((l) => l.includes('Fail'))).toHaveLength(3);
    const full = failures((await runCliInProcess(['policy', 'test', dir, '--explain=full'])).stdout);
    expect(full).toContain('  p_test.rego:12     | | Eval trace("no auto apply")');
    expect(full).toContain('  p.rego:3           | | | | Eval input.run.workspace.auto_apply');
    const bad = await runCliInProcess(['policy', 'test', dir, '--explain=off']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--explain=off.*notes, fails, full, debug/s);
  });

  it("keeps print output in the JSON report (base64, as Go writes []byte), each test's trace events in OPA's shape with -v, failed tests' trace lines for --json", async () => {
    const dir = tempDir(TRACED);
    const json = JSON.parse((await runCliInProcess(['policy', 'test', dir, '--format', 'json', '-v'])).stdout) as Array<Record<string, unknown>>;
    expect(json.map((r) => [r['name'], r['output']])).toEqual([
      ['test_ok', Buffer.from('fine\n').toString('base64')],
      ['test_auto_apply', Buffer.from('checking <undefined>\n').toString('base64')],
      ['test_value', undefined],
    ]);
    expect(Object.keys(json[1] as object)).toEqual(['location', 'package', 'name', 'trace', 'output', 'duration', 'fail']);
    const report = JSON.parse((await runCliInProcess(['policy', 'test', dir, '--json', '-v'])).stdout) as {
      results: Array<{ name: string; output?: string; trace?: string[] }>;
    };
    expect(report.results.map((r) => [r.name, r.trace?.length])).toEqual([
      ['data.p_test.test_ok', undefined],
      ['data.p_test.test_auto_apply', 7],
      ['data.p_test.test_value', 0],
    ]);
    // As OPA's JSONReporter: every test traced under -v (a passing one too: the expressions that failed on its way),
    // the events those lines print, an empty trace left out.
    type GoEvent = { Op: string; Node: unknown; Location: { file: string; row: number } | null; Message: string };
    const events = json.map((r) => r['trace'] as GoEvent[] | undefined);
    const opsOfLines = (report.results[1]?.trace ?? []).map((line) => /\s(Enter|Exit|Eval|Fail|Redo|Note) /.exec(line)?.[1]);
    expect(events[1]?.map((e) => e.Op)).toEqual(opsOfLines);
    expect(events[1]?.find((e) => e.Op === 'Note')).toMatchObject({ Node: null, Message: 'no auto apply', Location: { file: 'p_test.rego', row: 12 } });
    expect(events[0]?.some((e) => e.Op === 'Fail')).toBe(true);
    expect(events[2]).toBeUndefined();
    // Without -v no test is traced.
    const quiet = JSON.parse((await runCliInProcess(['policy', 'test', dir, '--format', 'json'])).stdout) as Array<Record<string, unknown>>;
    expect(quiet.map((r) => r['trace'])).toEqual([undefined, undefined, undefined]);
  });

  it('takes several paths as opa test does: files and directories mixed, their data merged deep, a file reached twice loaded once', async () => {
    const policy = tempDir({ 'p.rego': 'package p\n\nlimit := data.cfg.limit\n\nname := data.cfg.name\n' });
    const tests = tempDir({
      'p_test.rego': 'package p_test\n\ntest_limit if data.p.limit == 3\n\ntest_name if data.p.name == "n"\n',
      'data.json': '{"cfg": {"limit": 3}}',
    });
    const names = tempDir({ 'names.json': '{"cfg": {"name": "n"}}' });
    const run = await runCliInProcess(['policy', 'test', join(policy, 'p.rego'), tests, join(names, 'names.json'), join(tests, 'p_test.rego'), '-v']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('data.p_test.test_limit: PASS');
    expect(run.stdout).toContain('data.p_test.test_name: PASS');
    expect(run.stdout).not.toContain('#01');
    expect(run.stdout).toMatch(/PASS: 2\/2/);
    // The same leaf from two paths is a conflict, as OPA's loader refuses to merge it; a missing path is named.
    const clash = tempDir({ 'data.json': '{"cfg": {"limit": 4}}' });
    const conflict = await runCliInProcess(['policy', 'test', policy, tests, clash]);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain('data.cfg.limit');
    const missing = await runCliInProcess(['policy', 'test', policy, join(tests, 'nothing.rego')]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain(join(tests, 'nothing.rego'));
  });

  it('shows what the policies wrote escaped (a note as Go quotes it), and the same text from the built CLI as a child process', async () => {
    const dir = tempDir({ 'e_test.rego': 'package e_test\n\ntest_escape if {\n\tprint("\\u001b[2Jgone")\n\ttrace("\\u001b]0;title\\u0007")\n\tfalse\n}\n' });
    const child = await runCli(['policy', 'test', dir, '-v']);
    expect(child.code).toBe(2);
    expect(child.stdout).not.toContain('\u001b');
    expect(child.stdout).toContain('  \\x1b[2Jgone');
    expect(timeless(child.stdout)).toEqual(timeless((await runCliInProcess(['policy', 'test', dir, '-v'])).stdout));
    expect(timeless(child.stdout)).toContain('  e_test.rego:5     | | Note "\\x1b]0;title\\a"');
  });

  it('shows only what did not pass without -v; a skipped test alone exits 2, or 0 with -z', async () => {
    const dir = tempDir({ 'p_test.rego': 'package p_test\n\ntest_ok if true\n\ntodo_test_later if false\n' });
    const plain = await runCliInProcess(['policy', 'test', dir]);
    expect(plain.stdout.trimEnd().split('\n')).toEqual(['p_test.rego:5:', 'data.p_test.todo_test_later: SKIPPED', '-'.repeat(80), 'PASS: 1/2', 'SKIPPED: 1/2']);
    expect(plain.code).toBe(2);
    expect((await runCliInProcess(['policy', 'test', dir, '-z'])).code).toBe(0);
  });

  it('lists an evaluation error as ERROR, with its code in the JSON report', async () => {
    const dir = tempDir({ 'e_test.rego': 'package e_test\n\nf(_) := 1\n\nf(_) := 2\n\ntest_conflict if f(1) == 1\n' });
    const text = await runCliInProcess(['policy', 'test', dir]);
    expect(text.code).toBe(2);
    expect(text.stdout).toMatch(/^e_test\.rego:7:\ndata\.e_test\.test_conflict: ERROR \([^)]+\)\n {2}e_test\.rego:\d+: eval_conflict_error: /);
    expect(text.stdout).toContain('ERROR: 1/1');
    const json = JSON.parse((await runCliInProcess(['policy', 'test', dir, '--format', 'json'])).stdout) as Array<{ error?: { code: string } }>;
    expect(json[0]?.error?.code).toBe('eval_conflict_error');
  });

  it('treats a builtin error as undefined, as `opa test` does (not an ERROR)', async () => {
    // trivy-checks relies on this: `time.parse_rfc3339_ns` of Go's zero time errs, and the test expects nothing denied.
    const dir = tempDir({
      'b_test.rego': [
        'package b_test',
        '',
        'recent(t) if time.now_ns() - time.parse_rfc3339_ns(t) < 1',
        '',
        'test_zero_time_not_recent if not recent("0001-01-01T00:00:00Z")',
        '',
        'test_bad_number if to_number("x") == 1',
        '',
      ].join('\n'),
    });
    const text = await runCliInProcess(['policy', 'test', dir, '-v']);
    expect(text.stdout).toMatch(/data\.b_test\.test_zero_time_not_recent: PASS/);
    expect(text.stdout).toMatch(/data\.b_test\.test_bad_number: FAIL/);
    expect(text.stdout).not.toContain('ERROR');
    expect(text.code).toBe(2);
  });

  it("--format json writes OPA's JSON test report", async () => {
    const dir = tempDir({ 'p_test.rego': TESTS });
    const { code, stdout } = await runCliInProcess(['policy', 'test', dir, '--format', 'json', '--run', 'test_cases|todo']);
    expect(code).toBe(2);
    const report = JSON.parse(stdout) as Array<Record<string, unknown>>;
    expect(report.map(({ duration, ...r }) => (expect(typeof duration).toBe('number'), r))).toEqual([
      { location: { file: 'p_test.rego', row: 11, col: 1 }, package: 'data.p_test', name: 'todo_test_later', skip: true },
      {
        location: { file: 'p_test.rego', row: 13, col: 1 },
        sub_results: { one: { name: 'one' }, three: { name: 'three' }, two: { name: 'two', fail: true } },
        package: 'data.p_test',
        name: 'test_cases',
        fail: true,
      },
    ]);
  });
});

describe('framework-cli policy eval', () => {
  it('prints the value of a query as JSON, with input from a file', async () => {
    const dir = tempDir({ 'input.json': '{"source_agent":{"name":"planner"},"target_agent":{"name":"database"}}' });
    const { code, stdout } = await runCliInProcess(['policy', 'eval', '-d', 'policies', '-i', join(dir, 'input.json'), 'data.a2a_access.allow']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ result: [{ expressions: [{ value: false, text: 'data.a2a_access.allow' }] }] });
  });

  it('prints bindings exactly, big integers included, and {} when undefined', async () => {
    const bindings = await runCliInProcess(['policy', 'eval', '-d', 'policies', 'x := 12345678901234567890123; y := x + 1', '--json']);
    expect(bindings.stdout.replace(/\s/g, '')).toBe('{"result":[{"bindings":{"x":12345678901234567890123,"y":12345678901234567890124}}]}');
    const undefinedQuery = await runCliInProcess(['policy', 'eval', '-d', 'policies', 'data.nope.nothing == 1']);
    expect(JSON.parse(undefinedQuery.stdout)).toEqual({});
  });

  it('evaluates without -d, as opa eval does (no modules, no data)', async () => {
    const alone = await runCliInProcess(['policy', 'eval', 'x := 1 + 2; y := count(data)', '--json']);
    expect(alone.code).toBe(0);
    expect(JSON.parse(alone.stdout)).toEqual({ result: [{ bindings: { x: 3, y: 0 } }] });
  });

  it('treats a builtin error as undefined unless --strict-builtin-errors, as opa eval does', async () => {
    const dir = tempDir({ 't.rego': ['package t', '', 'x := to_number("abc")', '', 'y := 1', ''].join('\n') });
    const lenient = await runCliInProcess(['policy', 'eval', '-d', dir, 'data.t']);
    expect(lenient.code).toBe(0);
    expect(JSON.parse(lenient.stdout)).toEqual({ result: [{ expressions: [{ value: { y: 1 }, text: 'data.t' }] }] });
    const strict = await runCliInProcess(['policy', 'eval', '-d', dir, 'data.t', '--strict-builtin-errors']);
    expect(strict.code).not.toBe(0);
    expect(strict.stdout + strict.stderr).toContain('eval_builtin_error');
  });

  it('--explain prints the trace as opa eval does: text lines before the result, or explanation events with --json', async () => {
    const dir = tempDir({
      'p.rego': 'package p\n\nallow if {\n\ttrace("checking")\n\tinput.n > 1\n}\n',
      'input.json': '{"n": 0}',
    });
    const text = await runCliInProcess(['policy', 'eval', '-d', dir, '-i', join(dir, 'input.json'), '--explain=fails', 'data.p.allow']);
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    // Each Fail after the Enter events that led to it (the rule's Fail, then the query's, whose lineage was already shown).
    expect(lines.slice(0, 4)).toEqual([
      'query:1      Enter data.p.allow',
      'p.rego:3     | Enter data.p.allow',
      'p.rego:5     | | Fail gt(__local0__, 1)',
      'query:1      | Fail data.p.allow',
    ]);
    expect(JSON.parse(lines.slice(4).join('\n'))).toEqual({});
    const notes = await runCliInProcess(['policy', 'eval', '-d', dir, '-i', join(dir, 'input.json'), '--explain', 'notes', 'data.p.allow', '--json']);
    const out = JSON.parse(notes.stdout) as { explanation: Array<{ op: string; message?: string }> };
    expect(out.explanation.map((e) => [e.op, e.message])).toEqual([
      ['enter', undefined],
      ['enter', undefined],
      ['note', 'checking'],
    ]);
    const bad = await runCliInProcess(['policy', 'eval', '-d', dir, '--explain=verbose', 'data.p.allow']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--explain=verbose.*off, notes, fails, full, debug/s);
  });

  it('takes files as -d, as opa eval does: a .rego module and a JSON data document beside a directory', async () => {
    const dir = tempDir({ 'p.rego': 'package p\n\nallow if data.limits.max > input.n\n', 'limits.json': '{"limits": {"max": 5}}', 'input.json': '{"n": 3}' });
    const files = await runCliInProcess([
      'policy',
      'eval',
      '-d',
      join(dir, 'p.rego'),
      '-d',
      join(dir, 'limits.json'),
      '-i',
      join(dir, 'input.json'),
      'data.p.allow',
    ]);
    expect(files.code).toBe(0);
    expect(JSON.parse(files.stdout)).toEqual({ result: [{ expressions: [{ value: true, text: 'data.p.allow' }] }] });
    const withDir = await runCliInProcess([
      'policy',
      'eval',
      '-d',
      'policies',
      '-d',
      join(dir, 'p.rego'),
      '-d',
      join(dir, 'limits.json'),
      'x := data.p.allow with input.n as 9',
    ]);
    expect(JSON.parse(withDir.stdout)).toEqual({});
    const check = await runCliInProcess(['policy', 'check', join(dir, 'p.rego'), '--json']);
    expect(JSON.parse(check.stdout)).toEqual({ ok: true, modules: ['p.rego'], errors: [] });
    const missing = await runCliInProcess(['policy', 'eval', '-d', join(dir, 'nope.rego'), 'x := 1']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain(`No file or directory found at ${join(dir, 'nope.rego')}`);
    const text = await runCliInProcess(['policy', 'eval', '-d', join(dir, 'input.json'), '-d', join(tempDir({ 'n.txt': '' }), 'n.txt'), 'x := 1']);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('not a policy (.rego) or data (.json, .yaml, .yml) file');
  });

  it('explains a bad query or input file', async () => {
    const parse = await runCliInProcess(['policy', 'eval', '-d', 'policies', 'data.x[']);
    expect(parse.code).toBe(1);
    expect(parse.stderr).toContain('rego_parse_error');
    const dir = tempDir({ 'input.json': '{"broken": ' });
    const input = await runCliInProcess(['policy', 'eval', '-d', 'policies', '-i', join(dir, 'input.json'), 'data.a2a_access.allow']);
    expect(input.code).toBe(1);
    expect(input.stderr).toContain('input file is not valid JSON');
  });
});

describe('framework-cli policy serve', () => {
  it('serves the directory and stops on SIGTERM; refuses a directory that does not compile', async () => {
    const ok = await runCli(['policy', 'serve', 'policies', '--addr', '127.0.0.1:0', '--json'], { stopWhen: /listening/ });
    expect(JSON.parse(ok.stdout.split('\n')[0]!)).toMatchObject({ event: 'listening' });
    expect(ok.code).toBe(0);
    const dir = tempDir({ 'bad.rego': 'package bad\n\nallow if {\n' });
    const bad = await runCli(['policy', 'serve', dir, '--addr', '127.0.0.1:0']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/bad\.rego:\d+:\d+: rego_parse_error/);
    const addr = await runCli(['policy', 'serve', 'policies', '--addr', 'nowhere']);
    expect(addr.code).toBe(2);
    expect(addr.stderr).toContain('is not host:port');
  });
});
