import { createHash, type Hash } from 'node:crypto';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import type { RegoVersion } from '../parser.js';
import { parseJSON, toJS } from '../value-json.js';
import { unmarshalYaml } from '../builtins/yaml.js';

/** One Rego source file. `id` is its path relative to the policy root, with `/` separators. */
export interface PolicySource {
  id: string;
  path: string;
  source: string;
  /** 0 when the module is Rego v0 (the `v0Compatible` option, or the bundle manifest's `rego_version: 0`). */
  regoVersion?: RegoVersion;
}

export interface ReadPolicyOptions {
  /** Read every module as Rego v0 (OPA's `--v0-compatible`), unless the directory's `.manifest` names a `rego_version`. */
  v0Compatible?: boolean;
}

/** A problem with a file that is not Rego syntax (unreadable, bad JSON or YAML data). */
export interface FileProblem {
  file: string;
  message: string;
}

export interface PolicyFiles {
  modules: PolicySource[];
  /** Base documents from `data.json` / `data.yaml` files, placed at their directory's path (as in OPA bundles). */
  data: Record<string, unknown>;
  problems: FileProblem[];
  /**
   * A hash of everything read (each file's id and bytes, and each problem), so
   * a reader can tell whether the directory changed since it last looked.
   */
  digest?: string;
}

const DATA_FILES = new Set(['data.json', 'data.yaml', 'data.yml']);
const SKIPPED_DIRS = new Set(['node_modules', '.git']);

/**
 * Reads a policy directory the way OPA reads a bundle: every `*.rego` file is
 * a module; `data.json` / `data.yaml` files are base documents at the path of
 * their directory (`root/a/b/data.json` becomes `data.a.b`). Hidden entries
 * and `node_modules` are skipped. Symbolic links are followed (a Kubernetes
 * ConfigMap mounts each file as a link through its hidden `..data` link), a
 * directory reached twice only once. Files are read in sorted order, so the
 * result does not depend on the file system.
 */
export async function readPolicyDirectory(root: string, options: ReadPolicyOptions = {}): Promise<PolicyFiles> {
  const out: PolicyFiles = { modules: [], data: {}, problems: [] };
  const hash = createHash('sha256');
  await walk({ root, dir: root, out, hash, seen: new Set() });
  out.modules.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const version = (await manifestRegoVersion(root, out, hash)) ?? (options.v0Compatible === true ? 0 : undefined);
  if (version === 0) for (const m of out.modules) m.regoVersion = 0;
  for (const problem of out.problems) hash.update(`problem\0${problem.file}\0${problem.message}\0`);
  out.digest = hash.digest('hex');
  return out;
}

/**
 * Reads one file named on the command line, as OPA's loader reads `-d x.rego`
 * or `-d data.json`: a `.rego` file is a module (its id is the file's name),
 * a `.json`, `.yaml` or `.yml` file a base document at the root of `data`
 * (an object), whatever its name; any other file is a problem.
 */
export async function readPolicyFile(path: string, options: ReadPolicyOptions = {}): Promise<PolicyFiles> {
  const out: PolicyFiles = { modules: [], data: {}, problems: [] };
  const hash = createHash('sha256');
  const id = basename(path);
  if (id.endsWith('.rego')) {
    try {
      const source = await readFile(path, 'utf8');
      hash.update(`module\0${id}\0${source.length}\0${source}\0`);
      out.modules.push({ id, path, source, ...(options.v0Compatible === true ? { regoVersion: 0 as const } : {}) });
    } catch (error) {
      out.problems.push({ file: id, message: `cannot read file: ${(error as Error).message}` });
    }
  } else if (/\.(json|ya?ml)$/.test(id)) {
    await readDataFile({ root: dirname(path), dir: dirname(path), path, id, out, hash });
  } else {
    out.problems.push({ file: id, message: 'not a policy (.rego) or data (.json, .yaml, .yml) file' });
  }
  for (const problem of out.problems) hash.update(`problem\0${problem.file}\0${problem.message}\0`);
  out.digest = hash.digest('hex');
  return out;
}

/**
 * The `rego_version` of the bundle manifest (`.manifest` at the root), as OPA
 * reads it: 0 or 1; a manifest that is not JSON or names another version is
 * a problem. Per-file versions (`file_rego_versions`) are not read: such a
 * manifest is reported as a problem rather than half applied.
 */
async function manifestRegoVersion(root: string, out: PolicyFiles, hash: Hash): Promise<RegoVersion | undefined> {
  let text: string;
  try {
    text = await readFile(join(root, '.manifest'), 'utf8');
  } catch {
    return undefined;
  }
  hash.update(`manifest\0${text}\0`);
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (error) {
    out.problems.push({ file: '.manifest', message: `bundle manifest is not valid JSON: ${(error as Error).message}` });
    return undefined;
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    out.problems.push({ file: '.manifest', message: 'bundle manifest must be a JSON object' });
    return undefined;
  }
  const m = manifest as Record<string, unknown>;
  if (m.file_rego_versions !== undefined)
    out.problems.push({ file: '.manifest', message: 'file_rego_versions in a bundle manifest is not supported; set rego_version for the whole bundle' });
  const v = m.rego_version;
  if (v === undefined) return undefined;
  if (v !== 0 && v !== 1) {
    out.problems.push({ file: '.manifest', message: `rego_version must be 0 or 1, got ${JSON.stringify(v)}` });
    return undefined;
  }
  return v;
}

interface Walk {
  root: string;
  dir: string;
  out: PolicyFiles;
  hash: Hash;
  /** Real paths of the directories walked, so a link cycle ends. */
  seen: Set<string>;
}

/** The directories {@link readPolicyDirectory} reads, root first (real directories only, as a watcher needs them). */
export async function policyDirectories(root: string): Promise<string[]> {
  const found: string[] = [root];
  for (let i = 0; i < found.length; i++) {
    let entries;
    try {
      entries = await readdir(found[i] as string, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.isDirectory() && !entry.name.startsWith('.') && !SKIPPED_DIRS.has(entry.name)) found.push(join(found[i] as string, entry.name));
    }
  }
  return found;
}

async function walk(w: Walk): Promise<void> {
  const { root, dir, out, hash } = w;
  let entries;
  try {
    const real = await realpath(dir);
    if (w.seen.has(real)) return;
    w.seen.add(real);
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    out.problems.push({ file: relative(root, dir) || '.', message: `cannot read directory: ${(error as Error).message}` });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    const id = relative(root, path).split(sep).join('/');
    let isDirectory = entry.isDirectory();
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      try {
        const target = await stat(path);
        isDirectory = target.isDirectory();
        isFile = target.isFile();
      } catch (error) {
        // A dangling link is skipped as a missing file would be, but it counts in the digest (it may be a swap half done).
        hash.update(`dangling\0${id}\0${(error as NodeJS.ErrnoException).code ?? ''}\0`);
        continue;
      }
    }
    if (isDirectory) {
      if (!SKIPPED_DIRS.has(entry.name)) await walk({ ...w, dir: path });
    } else if (isFile && entry.name.endsWith('.rego')) {
      try {
        const source = await readFile(path, 'utf8');
        hash.update(`module\0${id}\0${source.length}\0${source}\0`);
        out.modules.push({ id, path, source });
      } catch (error) {
        out.problems.push({ file: id, message: `cannot read file: ${(error as Error).message}` });
      }
    } else if (isFile && DATA_FILES.has(entry.name)) {
      await readDataFile({ root, dir, path, id, out, hash });
    }
  }
}

async function readDataFile(options: { root: string; dir: string; path: string; id: string; out: PolicyFiles; hash: Hash }): Promise<void> {
  const { root, dir, path, id, out, hash } = options;
  let value: unknown;
  try {
    const text = await readFile(path, 'utf8');
    hash.update(`data\0${id}\0${text.length}\0${text}\0`);
    // Integers beyond 2^53 stay exact (as bigint) in both formats; YAML is read as OPA reads a bundle's data.yaml
    // (sigs.k8s.io/yaml over go-yaml v2), by yaml.unmarshal's reader.
    value = toJS(id.endsWith('.json') ? parseJSON(text) : unmarshalYaml(text));
  } catch (error) {
    out.problems.push({ file: id, message: `invalid data file: ${(error as Error).message}` });
    return;
  }
  const segments = relative(root, dir).split(sep).filter(Boolean);
  if (segments.length === 0 && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    out.problems.push({ file: id, message: 'a data file at the root must hold a JSON object' });
    return;
  }
  const conflict = mergeAt(out.data, segments, value);
  if (conflict) out.problems.push({ file: id, message: `data at ${conflict} is defined twice` });
}

/** Merges `value` into `tree` at `path`; returns the conflicting path, if any. */
export function mergeAt(tree: Record<string, unknown>, path: readonly string[], value: unknown): string | undefined {
  let node = tree;
  for (const [i, key] of path.entries()) {
    const last = i === path.length - 1;
    if (last) {
      const existing = node[key];
      if (existing === undefined) node[key] = value;
      else if (isObject(existing) && isObject(value)) return mergeObjects(existing, value, path.join('.'));
      else return path.join('.');
      return undefined;
    }
    const next = node[key];
    if (next === undefined) node[key] = {};
    else if (!isObject(next)) return path.slice(0, i + 1).join('.');
    node = node[key] as Record<string, unknown>;
  }
  if (!isObject(value)) return '(root)';
  return mergeObjects(node, value, '');
}

function mergeObjects(target: Record<string, unknown>, source: Record<string, unknown>, at: string): string | undefined {
  for (const [key, value] of Object.entries(source)) {
    const here = at ? `${at}.${key}` : key;
    const existing = target[key];
    if (existing === undefined) target[key] = value;
    else if (isObject(existing) && isObject(value)) {
      const conflict = mergeObjects(existing, value, here);
      if (conflict) return conflict;
    } else return here;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
