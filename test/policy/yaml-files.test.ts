/**
 * data.yaml files and YAML input files are read as OPA reads them (a bundle's
 * data.yaml and `opa eval --input x.yaml` go through sigs.k8s.io/yaml over
 * go-yaml v2), by yaml.unmarshal's reader: YAML 1.1 scalars, the last of
 * duplicate keys, the first document only, go-yaml's error texts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPolicyDirectory } from '../../runtime/policy/server/policy-files.js';
import { PolicyLoadError } from '../../runtime/policy/server/policy-set.js';
import { readInputFile } from '../../runtime/policy/tools/load-policies.js';
import { toJS } from '../../runtime/policy/value-json.js';

const DOC = 'enabled: yes\nmode: off\nport: 0x1F\nport: 8080\nwhen: 2001-12-14\n---\nignored: [\n';
const AS_OPA = { enabled: true, mode: false, port: 8080, when: '2001-12-14' };

function dir(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'yaml-files-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  return root;
}

describe('YAML files as OPA reads them', () => {
  it('reads a data.yaml with YAML 1.1 scalars, the last duplicate key and the first document', async () => {
    const files = await readPolicyDirectory(dir({ 'data.yaml': DOC, 'p.rego': 'package p\n' }));
    expect(files.problems).toEqual([]);
    expect(files.data).toEqual(AS_OPA);
  });

  it("reports a broken data.yaml in go-yaml's words", async () => {
    const files = await readPolicyDirectory(dir({ 'data.yaml': 'a: *nowhere\n' }));
    expect(files.problems.map((p) => p.message)).toEqual(["invalid data file: yaml: unknown anchor 'nowhere' referenced"]);
  });

  it('reads a YAML input file alike', async () => {
    const root = dir({ 'input.yaml': DOC, 'bad.yml': 'a: b: c\n' });
    expect(toJS(await readInputFile(join(root, 'input.yaml')))).toEqual(AS_OPA);
    const error = await readInputFile(join(root, 'bad.yml')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolicyLoadError);
    expect((error as PolicyLoadError).message).toContain('input file is not valid YAML: yaml: mapping values are not allowed in this context');
  });
});
