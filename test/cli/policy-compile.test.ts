import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/cli.js';

const POLICY = `package filters

include if input.fruits.owner == input.user
include if {
  input.fruits.price < 5
  not input.fruits.colour == "red"
}

default strict := false
strict if input.fruits.price < 5
`;

function policyDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fw-policy-compile-'));
  writeFileSync(join(dir, 'filters.rego'), POLICY);
  writeFileSync(join(dir, 'input.json'), '{"user": "bob"}');
  return dir;
}

describe('framework-cli policy compile', () => {
  it('prints the WHERE clause for the rule, with --unknowns and --input', async () => {
    const dir = policyDir();
    const { code, stdout } = await runCliInProcess([
      'policy',
      'compile',
      '-d',
      dir,
      '-i',
      join(dir, 'input.json'),
      '--unknowns',
      'input.fruits',
      'data.filters.include',
    ]);
    expect(code).toBe(0);
    expect(stdout.trim()).toMatch(/^WHERE \(/);
    expect(stdout).toContain("fruits.owner = E'bob'");
    expect(stdout).toContain("NOT fruits.colour = E'red'");
  });

  it('answers UCAST as JSON with --target and --json', async () => {
    const dir = policyDir();
    const { code, stdout } = await runCliInProcess([
      'policy',
      'compile',
      '-d',
      dir,
      '-i',
      join(dir, 'input.json'),
      '-u',
      'input.fruits',
      '--target',
      'ucast-prisma',
      '--json',
      'data.filters.include',
    ]);
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as { query: { operator: string; value: unknown[] } };
    expect(out.query.operator).toBe('or');
    expect(out.query.value).toContainEqual({ field: 'fruits.owner', operator: 'eq', type: 'field', value: 'bob' });
  });

  it('explains why a rule cannot be a filter, with OPA’s error, and exits 1', async () => {
    const dir = policyDir();
    const { code, stderr } = await runCliInProcess(['policy', 'compile', '-d', dir, '-u', 'input.fruits', 'data.filters.strict']);
    expect(code).toBe(1);
    expect(stderr).toContain('pe_fragment_error: use of default rule in data.filters.strict');
    expect(stderr).toContain('rewrite those expressions');
  });

  it('refuses a target it does not know and a query that is not a rule', async () => {
    const dir = policyDir();
    const target = await runCliInProcess(['policy', 'compile', '-d', dir, '--target', 'oracle', 'data.filters.include']);
    expect(target.code).not.toBe(0);
    expect(target.stderr).toContain('--target=oracle');
    const notRule = await runCliInProcess(['policy', 'compile', '-d', dir, 'input.x == 1']);
    expect(notRule.code).toBe(1);
    expect(notRule.stderr).toContain('the query must name a rule, such as data.filters.include');
  });
});
