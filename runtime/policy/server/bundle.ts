/**
 * OPA bundles as `opa run --server --bundle` loads them (`bundle/bundle.go`):
 * `.rego` files are modules, `data.json` / `data.yaml` / `data.yml` base
 * documents at their directory's path, and `.manifest` names the bundle's
 * `revision`, the `roots` it owns (modules and data outside them refused
 * with OPA's messages), its `rego_version` and `metadata`. A signed bundle
 * is verified before anything of it is read (see bundle-signature.ts).
 */
import { createHash } from 'node:crypto';
import { RE2JS } from 're2js';
import { globToRegex } from '../builtins/glob.js';
import { parseModule, type RegoVersion } from '../parser.js';
import { unmarshalYaml } from '../builtins/yaml.js';
import { parseJSON, toJS } from '../value-json.js';
import { BundleReadError, DEFAULT_BUNDLE_LIMITS, readBundleEntries, type BundleEntry, type BundleLimits } from './bundle-archive.js';
import { BundleSignatureError, verifyBundle, type VerificationKey } from './bundle-signature.js';
import { DeltaBundleError, readPatchFile, type DeltaOp } from './bundle-delta.js';
import { mergeAt, type FileProblem, type PolicyFiles, type PolicySource } from './policy-files.js';

/** What a loaded bundle declares: its name (the path given, as OPA names `-b` bundles) and manifest. */
export interface BundleInfo {
  name: string;
  revision: string;
  /** The roots it owns, trimmed of `/` (`[""]`, everything, when the manifest names none). */
  roots: string[];
  metadata?: Record<string, unknown>;
  /** OPA's bundle type: `delta` once a delta bundle patched it (see delta-activation.ts). */
  type?: 'snapshot' | 'delta';
}

/** A bundle read: its modules, data and problems (as a policy directory's), and what its manifest declares. */
export interface LoadedBundle {
  files: PolicyFiles;
  info: BundleInfo;
  /** A delta bundle's operations (its `patch.json`): applied to the active bundle, never served as they are. */
  delta?: DeltaOp[];
}

export interface LoadBundleOptions {
  /** Read the modules as Rego v0 unless the manifest names a `rego_version`. */
  v0Compatible?: boolean;
  /** Verify `.signatures.json` with this key; without it a signed bundle is refused, as OPA refuses one. */
  verification?: VerificationKey;
  limits?: BundleLimits;
}

/** Reads a bundle directory or `.tar.gz` file; what is wrong with it comes back as problems (a broken reload keeps the last good set). */
export async function loadBundle(path: string, options: LoadBundleOptions = {}): Promise<LoadedBundle> {
  const name = path.replace(/\/+$/, '') || path;
  const fail = (message: string): LoadedBundle => {
    const files: PolicyFiles = { modules: [], data: {}, problems: [{ file: name, message }] };
    files.digest = createHash('sha256').update(`problem\0${name}\0${message}`).digest('hex');
    return { files, info: { name, revision: '', roots: [''] } };
  };
  let entries: BundleEntry[];
  try {
    entries = await readBundleEntries(path, options.limits ?? DEFAULT_BUNDLE_LIMITS);
  } catch (error) {
    if (error instanceof BundleReadError) return fail(error.message);
    throw error;
  }
  const bundle = await bundleFromEntries(name, entries, options).catch((error: unknown) => {
    if (error instanceof BundleSignatureError) return fail(error.message);
    throw error;
  });
  // A delta patches the bundle a server downloaded before; a bundle read from a path has nothing to patch.
  if (bundle.delta !== undefined) return fail('a delta bundle (patch.json with operations) applies only to a bundle downloaded with --config-file');
  return bundle;
}

/** A bundle from its files (read from a directory, an archive or a download). */
export async function bundleFromEntries(name: string, all: readonly BundleEntry[], options: LoadBundleOptions = {}): Promise<LoadedBundle> {
  const signatures = all.find((e) => e.path === '.signatures.json');
  const entries = all.filter((e) => e !== signatures);
  if (options.verification) await verifyBundle(entries, signatures, options.verification);
  else if (signatures !== undefined) throw new BundleSignatureError('verification key not provided');

  // The digest tells a changed bundle from the one served; a file the bundle does not load (a blob beside the
  // policies) changes nothing served, and hashing hundreds of MiB of it would hold the event loop.
  const hash = createHash('sha256');
  for (const e of all) if (isLoaded(e.path)) hash.update(`${e.path}\0${e.bytes.length}\0`).update(e.bytes);
  const files: PolicyFiles = { modules: [], data: {}, problems: [], digest: hash.digest('hex') };
  const problem = (file: string, message: string) => files.problems.push({ file, message });

  const manifest = readManifest(
    entries.find((e) => e.path === '.manifest'),
    problem,
  );
  const patches = entries.filter((e) => e.path.slice(e.path.lastIndexOf('/') + 1) === 'patch.json');
  let delta: DeltaOp[] | undefined;
  if (patches.length > 1) problem(patches[1]?.path ?? 'patch.json', 'a bundle holds one patch.json at most');
  else if (patches.length === 1) {
    try {
      const ops = readPatchFile((patches[0] as BundleEntry).bytes);
      if (ops.length > 0) delta = ops;
    } catch (error) {
      if (!(error instanceof DeltaBundleError)) throw error;
      problem((patches[0] as BundleEntry).path, error.message);
    }
  }
  const fallback: RegoVersion | undefined = options.v0Compatible === true ? 0 : undefined;
  for (const entry of entries) {
    const base = entry.path.slice(entry.path.lastIndexOf('/') + 1);
    const id = `${name}/${entry.path}`;
    if (entry.path.endsWith('.rego')) {
      const version = moduleRegoVersion(manifest, entry.loaderPath ?? `/${entry.path}`, fallback, problem);
      // OPA stops at a version it cannot apply: the module is not read at all.
      if (version === null) continue;
      files.modules.push({ id, path: id, source: entry.bytes.toString('utf8'), ...(version === 0 ? { regoVersion: 0 as const } : {}) });
    } else if (base === 'data.json' || base === 'data.yaml' || base === 'data.yml') {
      readData(entry, id, base, files, problem);
    }
  }
  const roots = manifest.roots;
  if (delta !== undefined) {
    // As OPA's reader: a delta bundle holds the patch and the manifest, nothing to load beside them.
    if (Object.keys(files.data).length > 0) problem('data', 'delta bundle expected to contain only patch file but data files found');
    else if (files.modules.length > 0) problem(files.modules[0]?.id ?? '', 'delta bundle expected to contain only patch file but policy files found');
  }
  checkRoots(roots, files.modules, files.data, problem);
  if (delta !== undefined && !roots.includes('')) {
    // OPA compares the path as written (trimmed of `/`), before its keys are unescaped.
    const outside = delta.map((op) => op.pointer.replace(/^\/+|\/+$/g, '')).find((path) => !roots.some((root) => rootContains(root, path)));
    if (outside !== undefined) problem('patch.json', `manifest roots ${goStrings(roots)} do not permit data patch at path '${outside}'`);
  }
  files.modules.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    files,
    info: {
      name,
      revision: manifest.revision,
      roots,
      type: delta === undefined ? 'snapshot' : 'delta',
      ...(manifest.metadata === undefined ? {} : { metadata: manifest.metadata }),
    },
    ...(delta === undefined ? {} : { delta }),
  };
}

/** Whether a bundle file is read (modules, data, manifest, signatures); others are carried but not loaded. */
function isLoaded(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return path.endsWith('.rego') || path === '.manifest' || path === '.signatures.json' || ['data.json', 'data.yaml', 'data.yml', 'patch.json'].includes(base);
}

interface Manifest {
  revision: string;
  roots: string[];
  /** The manifest's `rego_version`, any integer (OPA refuses one other than 0 and 1 only for a file it applies to). */
  regoVersion?: number;
  /** `file_rego_versions`: glob patterns over the loader's file paths, in the manifest's order, and their versions. */
  fileRegoVersions?: Array<{ matcher: RE2JS; version: number }>;
  /** A pattern did not compile (reported once): no module is read, as OPA fails on the first. */
  badPattern?: boolean;
  metadata?: Record<string, unknown>;
}

function readManifest(entry: BundleEntry | undefined, problem: (file: string, message: string) => void): Manifest {
  const manifest: Manifest = { revision: '', roots: [''] };
  if (entry === undefined) return manifest;
  let m: unknown;
  try {
    m = JSON.parse(entry.bytes.toString('utf8'));
  } catch (error) {
    problem('.manifest', `bundle load failed on manifest decode: ${(error as Error).message}`);
    return manifest;
  }
  if (typeof m !== 'object' || m === null || Array.isArray(m)) {
    problem('.manifest', 'bundle load failed on manifest decode: the manifest must be a JSON object');
    return manifest;
  }
  const fields = m as Record<string, unknown>;
  if (fields.revision !== undefined) {
    if (typeof fields.revision === 'string') manifest.revision = fields.revision;
    else problem('.manifest', 'bundle load failed on manifest decode: revision must be a string');
  }
  if (fields.roots !== undefined && fields.roots !== null) {
    if (Array.isArray(fields.roots) && fields.roots.every((r) => typeof r === 'string')) {
      // As OPA: no leading or trailing slash.
      manifest.roots = (fields.roots as string[]).map((r) => r.replace(/^\/+|\/+$/g, ''));
    } else problem('.manifest', 'bundle load failed on manifest decode: roots must be an array of strings');
  }
  if (fields.rego_version !== undefined && fields.rego_version !== null) {
    if (Number.isSafeInteger(fields.rego_version)) manifest.regoVersion = fields.rego_version as number;
    else problem('.manifest', `bundle load failed on manifest decode: rego_version must be an integer, got ${JSON.stringify(fields.rego_version)}`);
  }
  if (fields.file_rego_versions !== undefined && fields.file_rego_versions !== null) {
    const map = fields.file_rego_versions;
    if (typeof map !== 'object' || Array.isArray(map) || !Object.values(map).every((v) => Number.isSafeInteger(v))) {
      problem('.manifest', 'bundle load failed on manifest decode: file_rego_versions must map file path patterns to integers');
    } else {
      manifest.fileRegoVersions = [];
      for (const [pattern, version] of Object.entries(map as Record<string, number>)) {
        try {
          // A gobwas glob without separators, as OPA compiles the pattern (`*` crosses `/`).
          manifest.fileRegoVersions.push({ matcher: RE2JS.compile(globToRegex(pattern, [])), version });
        } catch (error) {
          problem('.manifest', `failed to compile glob pattern ${pattern}: ${(error as Error).message}`);
          manifest.badPattern = true;
        }
      }
    }
  }
  if (fields.wasm !== undefined) problem('.manifest', 'wasm modules in a bundle are not supported');
  if (fields.metadata !== undefined && fields.metadata !== null) {
    if (typeof fields.metadata === 'object' && !Array.isArray(fields.metadata)) manifest.metadata = fields.metadata as Record<string, unknown>;
    else problem('.manifest', 'bundle load failed on manifest decode: metadata must be an object');
  }
  return manifest;
}

/**
 * A module's Rego version as OPA's `RegoVersionForFile` decides it: the first `file_rego_versions` pattern
 * matching its loader path (OPA tries them in Go's map order, which varies; here the manifest's order), else
 * the manifest's `rego_version`, else `--v0-compatible`; a version other than 0 and 1 is OPA's error for that file
 * (null: the module is refused, as is one when a pattern does not compile).
 */
function moduleRegoVersion(
  manifest: Manifest,
  path: string,
  fallback: RegoVersion | undefined,
  problem: (file: string, message: string) => void,
): RegoVersion | undefined | null {
  if (manifest.badPattern === true) return null;
  let version = manifest.regoVersion;
  for (const { matcher, version: v } of manifest.fileRegoVersions ?? []) {
    if (matcher.test(path)) {
      version = v;
      break;
    }
  }
  if (version === undefined) return fallback;
  if (version === 0 || version === 1) return version;
  problem(path, `unknown bundle rego-version ${version} for file '${path}'`);
  return null;
}

function readData(entry: BundleEntry, id: string, base: string, files: PolicyFiles, problem: (file: string, message: string) => void): void {
  let value: unknown;
  try {
    const text = entry.bytes.toString('utf8');
    value = toJS(base === 'data.json' ? parseJSON(text) : unmarshalYaml(text));
  } catch (error) {
    problem(id, `bundle load failed on ${id}: ${(error as Error).message}`);
    return;
  }
  const segments = entry.path.split('/').slice(0, -1);
  if (segments.length === 0 && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    problem(id, `bundle load failed on ${entry.path}: root value must be object`);
    return;
  }
  const conflict = mergeAt(files.data, segments, value);
  if (conflict !== undefined) problem(id, `bundle load failed on ${entry.path}: data at ${conflict} is defined twice`);
}

/** Go's `%v` of a string slice, as OPA's messages print the roots: `[a b/c]`. */
export function goStrings(values: readonly string[]): string {
  return `[${values.join(' ')}]`;
}

/** Whether `root` contains `path` (both `/`-separated; the empty root contains everything), as OPA's `RootPathsContain`. */
export function rootContains(root: string, path: string): boolean {
  if (root === '') return true;
  const r = root.split('/');
  const p = path.split('/');
  return r.length <= p.length && r.every((s, i) => s === p[i]);
}

export function rootsOverlap(a: string, b: string): boolean {
  return rootContains(a, b) || rootContains(b, a);
}

/** OPA's `validateAndInjectDefaults`: no two roots overlap, and every module's package and every data path lies under one. */
function checkRoots(
  roots: readonly string[],
  modules: readonly PolicySource[],
  data: Record<string, unknown>,
  problem: (file: string, message: string) => void,
): void {
  for (let i = 0; i < roots.length; i++) {
    for (let j = i + 1; j < roots.length; j++) {
      if (rootsOverlap(roots[i] as string, roots[j] as string)) {
        problem('.manifest', `manifest has overlapped roots: '${roots[i]}' and '${roots[j]}'`);
        return;
      }
    }
  }
  if (roots.includes('')) return;
  for (const module of modules) {
    const pkg = packagePath(module);
    // A module that does not parse is reported by the compiler, with its location.
    if (pkg === undefined) continue;
    if (!roots.some((root) => rootContains(root, pkg.path))) {
      problem(module.id, `manifest roots ${goStrings(roots)} do not permit '${pkg.text}' in module '${module.id}'`);
    }
  }
  const walk = (node: unknown, path: string): void => {
    if (roots.some((root) => rootContains(root, path))) return;
    const isObject = typeof node === 'object' && node !== null && !Array.isArray(node);
    // An object on the way down to a root is walked into; anything else here lies outside every root.
    if (isObject && roots.some((root) => path === '' || rootContains(path, root))) {
      for (const [key, child] of Object.entries(node as Record<string, unknown>)) walk(child, path === '' ? key : `${path}/${key}`);
      return;
    }
    problem('data', `manifest roots ${goStrings(roots)} do not permit data at path '/${path}' (hint: check bundle directory structure)`);
  };
  walk(data, '');
}

/** A module's package as a root path (`a/b`) and as OPA prints it (`package a.b`); undefined when it does not parse. */
function packagePath(module: PolicySource): { path: string; text: string } | undefined {
  let terms;
  try {
    terms = parseModule(module.source, module.id, module.regoVersion ?? 1).package.path.terms.slice(1);
  } catch {
    return undefined;
  }
  const keys = terms.map((t) => (t.type === 'string' ? t.value : undefined));
  if (keys.some((k) => k === undefined)) return undefined;
  const text = (keys as string[]).map((k, i) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `${i === 0 ? '' : '.'}${k}` : `[${JSON.stringify(k)}]`)).join('');
  return { path: (keys as string[]).join('/'), text: `package ${text}` };
}

/** Bundles' problems with each other: OPA refuses two bundles whose roots overlap. */
export function crossBundleProblems(bundles: readonly BundleInfo[]): FileProblem[] {
  const clashing = new Set<string>();
  for (let i = 0; i < bundles.length; i++) {
    for (let j = i + 1; j < bundles.length; j++) {
      const a = bundles[i] as BundleInfo;
      const b = bundles[j] as BundleInfo;
      if (a.roots.some((ra) => b.roots.some((rb) => rootsOverlap(ra, rb)))) {
        clashing.add(a.name);
        clashing.add(b.name);
      }
    }
  }
  if (clashing.size === 0) return [];
  return [{ file: [...clashing].sort()[0] as string, message: `detected overlapping roots in bundle manifest with: ${goStrings([...clashing].sort())}` }];
}

/**
 * OPA's scope check for a write through the API (`checkPathScope`): the
 * message of the 400 when `path` (a data path, or a package's path) lies
 * under, or above, a bundle's root; undefined when the write is free.
 */
export function bundleWriteRefusal(bundles: readonly BundleInfo[], path: readonly string[]): string | undefined {
  if (bundles.length === 0) return undefined;
  const spath = path.join('/');
  if (spath === '') return "can't write to document root with bundle roots configured";
  for (const bundle of bundles) {
    for (const root of bundle.roots) {
      if (root === '') return `all paths owned by bundle ${JSON.stringify(bundle.name)}`;
      const r = root.split('/');
      if (path.every((s, i) => i >= r.length || s === r[i])) return `path ${spath} is owned by bundle ${JSON.stringify(bundle.name)}`;
    }
  }
  return undefined;
}
