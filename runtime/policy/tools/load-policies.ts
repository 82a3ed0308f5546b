import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { unmarshalYaml } from '../builtins/yaml.js';
import { parseJSON } from '../value-json.js';
import type { Value } from '../value.js';
import { mergeAt, readPolicyDirectory, readPolicyFile, type PolicyFiles, type PolicySource, type ReadPolicyOptions } from '../server/policy-files.js';
import { compilePolicySet, PolicyLoadError, type PolicySet } from '../server/policy-set.js';

/**
 * Reads and compiles one or more policy directories or files (`opa eval -d`
 * takes both: see {@link readPolicyFile}). With several, module ids are
 * prefixed by their directory so they stay distinct. Throws
 * `PolicyLoadError` listing every problem with `file:row:col`.
 */
export async function loadPolicySet(paths: readonly string[], options: ReadPolicyOptions = {}): Promise<PolicySet> {
  return compilePolicySet(await readPolicyDirectories(paths, options));
}

export async function readPolicyDirectories(paths: readonly string[], options: ReadPolicyOptions = {}): Promise<PolicyFiles> {
  const read = await Promise.all(paths.map(async (path) => ({ path, ...(await readPolicyPath(path, options)) })));
  if (read.length === 1) return (read[0] as (typeof read)[number]).files;
  const merged: PolicyFiles = { modules: [], data: {}, problems: [] };
  // As OPA's loader keys modules by file path, a file reached twice (`dir dir/a.rego`, `a.rego ./a.rego`) is one module.
  const modules = new Map<string, PolicySource>();
  for (const { files, prefix, path } of read) {
    for (const m of files.modules) {
      const id = join(prefix, m.id);
      modules.delete(id);
      modules.set(id, { ...m, id });
    }
    merged.problems.push(...files.problems.map((p) => ({ ...p, file: join(prefix, p.file) })));
    // Deep, as OPA merges the data of several paths: only the same leaf twice is a conflict.
    const conflict = mergeAt(merged.data, [], files.data);
    if (conflict !== undefined) merged.problems.push({ file: path, message: `data.${conflict} is defined in more than one of the paths given` });
  }
  merged.modules = [...modules.values()];
  return merged;
}

/** A directory read as a bundle, a file as OPA's loader reads one; `prefix` makes their ids distinct among several. */
async function readPolicyPath(path: string, options: ReadPolicyOptions): Promise<{ files: PolicyFiles; prefix: string }> {
  const isFile = await stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
  if (isFile) return { files: await readPolicyFile(path, options), prefix: dirname(path) };
  return { files: await readPolicyDirectory(path, options), prefix: path };
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
