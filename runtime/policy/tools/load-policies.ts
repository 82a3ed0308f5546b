import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { unmarshalYaml } from '../builtins/yaml.js';
import { parseJSON } from '../value-json.js';
import type { Value } from '../value.js';
import { readPolicyDirectory, type PolicyFiles, type ReadPolicyOptions } from '../server/policy-files.js';
import { compilePolicySet, PolicyLoadError, type PolicySet } from '../server/policy-set.js';

/**
 * Reads and compiles one or more policy directories. With several, module
 * ids are prefixed by their directory so they stay distinct. Throws
 * `PolicyLoadError` listing every problem with `file:row:col`.
 */
export async function loadPolicySet(dirs: readonly string[], options: ReadPolicyOptions = {}): Promise<PolicySet> {
  return compilePolicySet(await readPolicyDirectories(dirs, options));
}

export async function readPolicyDirectories(dirs: readonly string[], options: ReadPolicyOptions = {}): Promise<PolicyFiles> {
  if (dirs.length === 1) return readPolicyDirectory(dirs[0] as string, options);
  const merged: PolicyFiles = { modules: [], data: {}, problems: [] };
  for (const dir of dirs) {
    const files = await readPolicyDirectory(dir, options);
    merged.modules.push(...files.modules.map((m) => ({ ...m, id: join(dir, m.id) })));
    merged.problems.push(...files.problems.map((p) => ({ ...p, file: join(dir, p.file) })));
    for (const [key, value] of Object.entries(files.data)) {
      if (key in merged.data) merged.problems.push({ file: dir, message: `data.${key} is defined in more than one directory` });
      else merged.data[key] = value;
    }
  }
  return merged;
}

/** Reads an input document from a JSON or YAML file (big integers kept exact; YAML read as `yaml.unmarshal` reads it). */
export async function readInputFile(path: string): Promise<Value> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new PolicyLoadError([{ code: 'invalid_input', message: `cannot read input file: ${(error as Error).message}`, file: path }]);
  }
  try {
    return /\.ya?ml$/i.test(path) ? unmarshalYaml(text) : parseJSON(text);
  } catch (error) {
    throw new PolicyLoadError([
      { code: 'invalid_input', message: `input file is not valid ${/\.ya?ml$/i.test(path) ? 'YAML' : 'JSON'}: ${(error as Error).message}`, file: path },
    ]);
  }
}
