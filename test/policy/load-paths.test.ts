/**
 * `-d` names directories and files alike, as `opa eval -d` does: a `.rego`
 * file is a module, a JSON or YAML file a document at the root of `data`,
 * and the data of several paths merges deeply.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPolicyFile } from '../../runtime/policy/server/policy-files.js';
import { loadPolicySet, readPolicyDirectories } from '../../runtime/policy/tools/load-policies.js';
import { evalQuery } from '../../runtime/policy/tools/eval-query.js';

function dir(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'load-paths-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  return root;
}

describe('policy paths: files beside directories', () => {
  it('reads a .rego file as one module and a JSON or YAML file as data at the root, whatever its name', async () => {
    const root = dir({ 'p.rego': 'package p\n\nallow if data.limits.max > 3\n', 'limits.json': '{"limits": {"max": 5}}', 'more.yml': 'extra: yes\n' });
    const rego = await readPolicyFile(join(root, 'p.rego'));
    expect(rego.problems).toEqual([]);
    expect(rego.modules.map((m) => m.id)).toEqual(['p.rego']);
    expect((await readPolicyFile(join(root, 'limits.json'))).data).toEqual({ limits: { max: 5 } });
    expect((await readPolicyFile(join(root, 'more.yml'))).data).toEqual({ extra: true });

    const set = await loadPolicySet([join(root, 'p.rego'), join(root, 'limits.json')]);
    expect(evalQuery(set.policy, 'data.p.allow')).toEqual({ result: [{ expressions: [{ value: true, text: 'data.p.allow' }] }] });
  });

  it('refuses a file that is neither policy nor data, and a data file that is not an object', async () => {
    const root = dir({ 'notes.txt': 'hello', 'list.json': '[1, 2]' });
    expect((await readPolicyFile(join(root, 'notes.txt'))).problems).toEqual([
      { file: 'notes.txt', message: 'not a policy (.rego) or data (.json, .yaml, .yml) file' },
    ]);
    expect((await readPolicyFile(join(root, 'list.json'))).problems).toEqual([
      { file: 'list.json', message: 'a data file at the root must hold a JSON object' },
    ]);
  });

  it('merges the data of several paths deeply, and reports the same leaf given twice', async () => {
    const a = dir({ 'a.json': '{"cfg": {"a": 1}}' });
    const b = dir({ 'data.json': '{"cfg": {"b": 2}}', 'q.rego': 'package q\n\nn := count(data.cfg)\n' });
    const merged = await readPolicyDirectories([join(a, 'a.json'), b]);
    expect(merged.problems).toEqual([]);
    expect(merged.data).toEqual({ cfg: { a: 1, b: 2 } });
    // Module ids stay distinct: a file's id is its path, a directory's modules are prefixed by it.
    expect(merged.modules.map((m) => m.id)).toEqual([join(b, 'q.rego')]);

    const clash = dir({ 'c.json': '{"cfg": {"a": 3}}' });
    const twice = await readPolicyDirectories([join(a, 'a.json'), join(clash, 'c.json')]);
    expect(twice.problems).toEqual([{ file: join(clash, 'c.json'), message: 'data.cfg.a is defined in more than one of the paths given' }]);
  });
});
