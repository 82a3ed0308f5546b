import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runCliInProcess } from '../support/cli.js';

const UNFORMATTED = 'package a\nimport data.z\nimport data.b\nallow if { input.x == 1; input.y }\n';
const FORMATTED = 'package a\n\nimport data.b\nimport data.z\n\nallow if {\n\tinput.x == 1\n\tinput.y\n}\n';

function tempDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'fw-policy-fmt-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('framework-cli policy fmt', () => {
  it('keeps the shipped policies, templates and examples formatted (fmt --check over the repository)', async () => {
    const { code, stdout, stderr } = await runCliInProcess(['policy', 'fmt', '--check', 'policies', 'templates', 'agent_cards', '--json']);
    const doc = JSON.parse(stdout) as { ok: boolean; changed: string[]; files: { file: string }[] };
    expect(doc.changed, stderr).toEqual([]);
    expect(code).toBe(0);
    expect(doc.files.map((f) => f.file)).toContain('policies/a2a_access.rego');
    expect(doc.files.length).toBeGreaterThanOrEqual(6);
  });

  it('prints the formatted text by default and leaves the file alone', async () => {
    const dir = tempDir({ 'a.rego': UNFORMATTED });
    const { code, stdout } = await runCliInProcess(['policy', 'fmt', join(dir, 'a.rego')]);
    expect(code).toBe(0);
    expect(stdout).toBe(FORMATTED);
    expect(readFileSync(join(dir, 'a.rego'), 'utf8')).toBe(UNFORMATTED);
  });

  it('--check lists the files that would change and exits 1; 0 once formatted', async () => {
    const dir = tempDir({ 'a.rego': UNFORMATTED, 'b.rego': FORMATTED, 'notes.txt': 'not rego' });
    const check = await runCliInProcess(['policy', 'fmt', '--check', dir]);
    expect(check.code).toBe(1);
    expect(check.stdout).toBe(`${join(dir, 'a.rego')}\n`);
    const json = await runCliInProcess(['policy', 'fmt', '--check', dir, '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      ok: false,
      changed: [join(dir, 'a.rego')],
      files: [
        { file: join(dir, 'a.rego'), changed: true },
        { file: join(dir, 'b.rego'), changed: false },
      ],
    });
  });

  it('--write rewrites only the files that change, after which --check passes', async () => {
    const dir = tempDir({ 'a.rego': UNFORMATTED, 'b.rego': FORMATTED });
    const write = await runCliInProcess(['policy', 'fmt', '--write', dir, '--json']);
    expect(write.code).toBe(0);
    expect(JSON.parse(write.stdout)).toMatchObject({ ok: true, changed: [join(dir, 'a.rego')] });
    expect(readFileSync(join(dir, 'a.rego'), 'utf8')).toBe(FORMATTED);
    expect((await runCliInProcess(['policy', 'fmt', '--check', dir])).code).toBe(0);
  });

  it('--diff prints a unified diff that patches the file into its formatted text', async () => {
    const dir = tempDir({ 'a.rego': 'package a\n\nx = 1\ny := 2\n' });
    const { code, stdout } = await runCliInProcess(['policy', 'fmt', '--diff', join(dir, 'a.rego')]);
    expect(code).toBe(0);
    expect(stdout).toBe(`--- ${join(dir, 'a.rego')}\n+++ ${join(dir, 'a.rego')} (formatted)\n@@ -1,4 +1,4 @@\n package a\n \n-x = 1\n+x := 1\n y := 2\n`);
  });

  it('a file that does not parse is a rego_parse_error with its position, exit 1 as from policy check, and nothing is written', async () => {
    const dir = tempDir({ 'a.rego': UNFORMATTED, 'bad.rego': 'package bad\n\nallow if {\n' });
    const text = await runCli(['policy', 'fmt', '--write', dir]);
    expect(text.code).toBe(1);
    // The end of the text after its last newline is OPA's column 0.
    expect(text.stderr).toContain(`${join(dir, 'bad.rego')}:4:0: rego_parse_error: unexpected eof token`);
    expect(readFileSync(join(dir, 'a.rego'), 'utf8')).toBe(UNFORMATTED);
    const json = await runCliInProcess(['policy', 'fmt', join(dir, 'bad.rego'), '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'rego_parse_error', exit: 1, message: expect.stringContaining('bad.rego:4:0') } });
    // The same file through both commands: the same exit code.
    const check = await runCli(['policy', 'fmt', '--check', dir]);
    expect(check.code).toBe(1);
    expect((await runCli(['policy', 'check', dir])).code).toBe(check.code);
  });

  it('formats Rego piped on standard input (no path, or -); --check names it <stdin>; --write is refused', async () => {
    const piped = await runCli(['policy', 'fmt'], { input: UNFORMATTED });
    expect(piped).toMatchObject({ code: 0, stdout: FORMATTED });
    const dash = await runCli(['policy', 'fmt', '-', '--check', '--json'], { input: UNFORMATTED });
    expect(dash.code).toBe(1);
    expect(JSON.parse(dash.stdout)).toEqual({ ok: false, changed: ['<stdin>'], files: [{ file: '<stdin>', changed: true }] });
    expect((await runCli(['policy', 'fmt', '--check'], { input: FORMATTED })).code).toBe(0);
    const bad = await runCli(['policy', 'fmt'], { input: 'package bad\n\nallow if {\n' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('<stdin>:4:0: rego_parse_error');
    const write = await runCli(['policy', 'fmt', '--write', '--json'], { input: UNFORMATTED });
    expect(write.code).toBe(2);
    expect(JSON.parse(write.stdout)).toMatchObject({ error: { code: 'invalid_arguments', message: expect.stringContaining('--write needs files') } });
  });

  it('rejects a missing path and combined modes as bad arguments (exit 2)', async () => {
    expect((await runCliInProcess(['policy', 'fmt', join(tmpdir(), 'fw-no-such-policy-dir'), '--json'])).code).toBe(2);
    expect((await runCli(['policy', 'fmt', '--check', '--write', 'policies'])).code).toBe(2);
  });
});
