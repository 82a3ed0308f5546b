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
});

describe('framework-cli policy test', () => {
  it('runs every test_ rule of the shipped policies', async () => {
    const { code, stdout } = await runCliInProcess(['policy', 'test', 'policies', '-v']);
    expect(code).toBe(0);
    expect(stdout).toContain('data.a2a_access_test.test_untrusted_may_not_call_database: PASS');
    expect(stdout).toContain('data.trading_test.test_rate_limit: PASS');
    expect(stdout).toMatch(/PASS: 18\/18/);
  });

  it('exits 1 on a failing test and says what it got; --json lists results', async () => {
    const dir = tempDir({
      'p.rego': 'package p\n\nimport rego.v1\n\nx := 1\n',
      'p_test.rego': 'package p_test\n\nimport rego.v1\n\ntest_ok if data.p.x == 1\n\ntest_wrong if data.p.x == 2\n\ntest_value := 7\n',
    });
    const text = await runCliInProcess(['policy', 'test', dir]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('data.p_test.test_wrong: FAIL');
    expect(text.stdout).toContain('PASS: 1/3');
    expect(text.stdout).toContain('FAIL: 2/3');
    const json = await runCliInProcess(['policy', 'test', dir, '--json', '--run', 'test_value']);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as { results: { name: string; outcome: string; detail: string }[] };
    expect(report.results).toEqual([expect.objectContaining({ name: 'data.p_test.test_value', outcome: 'fail', detail: '7' })]);
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
