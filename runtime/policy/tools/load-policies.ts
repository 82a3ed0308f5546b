import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, sep } from 'node:path';
import { schemaKey, type SchemaSet } from '../compiler/schema-annotations.js';
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
export async function loadPolicySet(
  paths: readonly string[],
  options: ReadPolicyOptions & {
    /** `--schema`: a JSON schema file (the input's type) or a directory of them (the `schema.` namespace). */
    schema?: string;
    /** Type-checks `# METADATA` `schemas` annotations, as `opa check` does (`opa eval` does not). */
    typeCheckAnnotations?: boolean;
  } = {},
): Promise<PolicySet> {
  const schemas = options.schema === undefined ? undefined : await readSchemas(options.schema);
  return compilePolicySet(await readPolicyDirectories(paths, options), {
    ...(schemas === undefined ? {} : { schemas }),
    ...(options.typeCheckAnnotations === undefined ? {} : { typeCheckAnnotations: options.typeCheckAnnotations }),
  });
}

/**
 * Reads `--schema` as OPA's loader reads it: one file is the root schema (`schema`, the input's type); in a
 * directory every file (any extension, subdirectories included) is `schema.<dirs>.<name without extension>`.
 */
export async function readSchemas(path: string): Promise<SchemaSet> {
  const fail = (message: string, file: string): never => {
    throw new PolicyLoadError([{ code: 'invalid_schema', message, file }]);
  };
  const info = await stat(path).catch((error: Error) => fail(`cannot read schema: ${error.message}`, path));
  const readOne = async (file: string): Promise<unknown> => {
    const text = await readFile(file, 'utf8').catch((error: Error) => fail(`cannot read schema: ${error.message}`, file));
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      return fail(`schema is not valid JSON: ${(error as Error).message}`, file);
    }
  };
  const out = new Map<string, unknown>();
  if (!info.isDirectory()) {
    out.set(schemaKey([]), await readOne(path));
    return out;
  }
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const file = join(dir, e.name);
      if (e.isDirectory()) await walk(file);
      else if (e.isFile()) {
        const parts = relative(path, dirname(file))
          .split(sep)
          .filter((p) => p !== '');
        out.set(schemaKey([...parts, basename(file, extname(file))]), await readOne(file));
      }
    }
  };
  await walk(path);
  return out;
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
