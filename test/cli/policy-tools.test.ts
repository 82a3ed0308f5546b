import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/cli.js';

function tempDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'fw-policy-tools-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

// Lines: 3 allow's head, 4 its body; 7 deny's head, 8 its body (never reached by the tests);
// 11 and 12 the test.
const AUTHZ = [
  'package authz',
  '',
  'allow if {',
  '\tinput.user == "admin"',
  '}',
  '',
  'deny contains msg if {',
  '\tinput.user == "mallory"',
  '\tmsg := "no"',
  '}',
].join('\n');
const AUTHZ_TEST = ['package authz_test', '', 'import data.authz', '', 'test_admin if {', '\tauthz.allow with input as {"user": "admin"}', '}', ''].join('\n');

describe('framework-cli policy test --coverage', () => {
  it("reports OPA's coverage shape: covered and not covered line ranges per file, and percentages", async () => {
    const dir = tempDir({ 'authz.rego': AUTHZ, 'authz_test.rego': AUTHZ_TEST });
    const json = await runCliInProcess(['policy', 'test', dir, '--coverage', '--json']);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.passed).toBe(1);
    expect(report.coverage.files['authz.rego']).toEqual({
      covered: [{ start: { row: 3 }, end: { row: 4 } }],
      not_covered: [{ start: { row: 7 }, end: { row: 9 } }],
      covered_lines: 2,
      not_covered_lines: 3,
      coverage: 40,
    });
    expect(report.coverage.files['authz_test.rego']).toEqual({
      covered: [{ start: { row: 5 }, end: { row: 6 } }],
      covered_lines: 2,
      coverage: 100,
    });
    expect(report.coverage).toMatchObject({ covered_lines: 4, not_covered_lines: 3, coverage: 57.14 });

    // Without --json the coverage report is the output, as with `opa test --coverage`.
    const text = await runCliInProcess(['policy', 'test', dir, '--coverage']);
    expect(JSON.parse(text.stdout)).toEqual(report.coverage);
  });
});

describe('framework-cli policy bench', () => {
  it('times a query like `opa bench`: a table, or the figures under --json', async () => {
    const dir = tempDir({ 'authz.rego': AUTHZ, 'input.json': '{"user": "admin"}' });
    const json = await runCliInProcess(['policy', 'bench', '-d', dir, '-i', join(dir, 'input.json'), '--count', '200', 'data.authz.allow', '--json']);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ samples: 200, solutions: 1 });
    expect(report.p50_ns).toBeGreaterThan(0);
    expect(report.p99_ns).toBeGreaterThanOrEqual(report.p50_ns);
    const table = await runCliInProcess(['policy', 'bench', '-d', dir, '--count', '50', 'data.authz.allow']);
    expect(table.stdout).toMatch(/\| samples\s+\|\s+50 \|/);
    expect(table.stdout).toMatch(/\| ns\/op\s+\|\s+\d+ \|/);
    const bad = await runCliInProcess(['policy', 'bench', '-d', dir, 'data.authz[', '--json']);
    expect(bad.code).not.toBe(0);
    expect(JSON.parse(bad.stdout)).toMatchObject({ error: { code: 'rego_parse_error' } });
  });
});

describe('framework-cli policy check/eval/test --schema', () => {
  const POLICY = ['package p', '', '# METADATA', '# schemas:', '#   - input: schema.req', 'allow if input.usr == "admin"', ''].join('\n');
  const REQ = JSON.stringify({ type: 'object', properties: { user: { type: 'string' } } });

  it("check refuses a body that reads what the annotation's schema lacks, in OPA's words; eval loads it, as opa eval does", async () => {
    const dir = tempDir({ 'p.rego': POLICY });
    const schemas = tempDir({ 'req.json': REQ });
    const check = await runCliInProcess(['policy', 'check', dir, '--schema', schemas, '--json']);
    expect(check.code).toBe(1);
    const doc = JSON.parse(check.stdout);
    expect(doc.errors).toEqual([
      {
        code: 'rego_type_error',
        message: 'undefined ref: input.usr\n\tinput.usr\n\t      ^\n\t      have: "usr"\n\t      want (one of): ["user"]',
        file: `${dir}/p.rego`,
        row: 6,
        col: 10,
      },
    ]);
    // Without --schema there is no schema set, and OPA skips an annotation that names a schema.
    expect((await runCliInProcess(['policy', 'check', dir, '--json'])).code).toBe(0);
    const empty = tempDir({ 'other.json': REQ });
    const missing = JSON.parse((await runCliInProcess(['policy', 'check', dir, '--schema', empty, '--json'])).stdout);
    expect(missing.errors.map((e: { message: string; row: number }) => `${e.row}: ${e.message}`)).toEqual(['6: undefined schema: schema.req']);
    const test = await runCliInProcess(['policy', 'test', dir, '--schema', schemas]);
    expect(test.code).not.toBe(0);
    const evaluated = await runCliInProcess(['policy', 'eval', '-d', dir, '--schema', schemas, 'data.p.allow', '--json']);
    expect(evaluated.code).toBe(0);
    // A schema file types input in every rule and in the query, as opa eval --schema does.
    const file = join(schemas, 'req.json');
    const refused = await runCliInProcess(['policy', 'eval', '-d', dir, '--schema', file, 'data.p.allow', '--json']);
    expect(JSON.parse(refused.stdout).error.message).toContain('p.rego:6:10: rego_type_error: undefined ref: input.usr');
    const ok = tempDir({ 'q.rego': 'package q\n\nok if input.user == "u"\n' });
    expect((await runCliInProcess(['policy', 'eval', '-d', ok, '--schema', file, 'data.q.ok', '--json'])).code).toBe(0);
    const query = await runCliInProcess(['policy', 'eval', '-d', ok, '--schema', file, 'upper(input.nope)', '--json']);
    expect(JSON.parse(query.stdout).error.message).toContain('rego_type_error: undefined ref: input.nope');
  });
});
