import { createHash } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { silentLogger, type Logger } from '../../core/logger.js';
import { BadRequestError } from '../../core/errors/bad-request-error.js';
import { parseModule } from '../parser.js';
import { fromJS, stringifyJSON } from '../value-json.js';
import { copyPlainData } from './plain-data.js';
import { bundleWriteRefusal, crossBundleProblems, loadBundle, type BundleInfo, type LoadBundleOptions } from './bundle.js';
import type { BundleSource } from './bundle-download.js';
import { applyDataOp, checkDataConflicts, DataWriteError, type DataOp } from './data-writes.js';
import { mergeAt, policyDirectories, readPolicyDirectory, type PolicyFiles } from './policy-files.js';
import { compilePolicySet, formatProblem, PolicyLoadError, type PolicyProblem, type PolicySet } from './policy-set.js';

export interface PolicyStoreOptions {
  /** A policy directory served as it is (absent when only bundles are served). */
  dir?: string;
  /** OPA bundles (directories or `.tar.gz` files) served beside it, as `opa run --bundle` serves them. */
  bundles?: readonly string[];
  /** How the bundles are read: signature verification, size limits. */
  bundleOptions?: Omit<LoadBundleOptions, 'v0Compatible'>;
  /** Bundles from elsewhere (downloads), served beside the ones read from paths. */
  sources?: readonly BundleSource[];
  logger?: Logger;
  /** Quiet time after a change before reloading; default 100 ms. */
  debounceMs?: number;
  /**
   * While watching, how often the files' contents are hashed and compared
   * with what was last read, whatever the watcher saw (a backstop for changes
   * no file event reports); default 2000 ms.
   */
  recheckMs?: number;
  /** Read the directory's modules, and modules put through the API, as Rego v0 (OPA's `--v0-compatible`). */
  v0Compatible?: boolean;
}

/** The outcome of the latest load attempt. */
export interface LoadStatus {
  ok: boolean;
  at: Date;
  problems: readonly PolicyProblem[];
}

/** A load that failed: when, and why (kept after a later load succeeds, so an operator can still see it). */
export interface LoadFailure {
  at: Date;
  problems: readonly PolicyProblem[];
}

/**
 * Holds the policies a server answers from. A reload compiles the whole
 * directory (plus modules written through the API) and swaps it in only when
 * it compiles; a broken edit keeps the last good set serving and is reported
 * in `status`. Modules written through the API live in an overlay that wins
 * over files with the same id.
 */
/** Everything read for one load: the files, the bundles they came from, and the bundles not activated yet. */
type ReadFiles = PolicyFiles & { bundles: BundleInfo[]; pending: string[] };

export class PolicyStore {
  readonly dir: string | undefined;
  #sources: BundleSource[];
  /** How many of the sources are `--bundle` paths (the rest are downloads, replaced by `replaceDownloads`). */
  readonly #pathSources: number;
  /** The bundles of the set being served (their manifests' revisions and roots). */
  #bundles: BundleInfo[] = [];
  #current: PolicySet | undefined;
  #status: LoadStatus | undefined;
  #overlay = new Map<string, string | null>();
  /** Data writes through the API, replayed in order over the data files on every load. */
  #dataWrites: Array<{ ops: DataOp[]; create: boolean }> = [];
  /** One watcher per directory (not per file: a file replaced by rename is a new inode a file watcher never sees). */
  readonly #watchers = new Map<string, FSWatcher>();
  #watching = false;
  #timer: NodeJS.Timeout | undefined;
  #recheck: NodeJS.Timeout | undefined;
  #reloading: Promise<boolean> | undefined;
  #again = false;
  /** Whether the queued reload must compile even when the files read are the ones last read. */
  #force = false;
  /** The digest of the files last read (loaded or not), so an unchanged directory is not compiled again. */
  #lastDigest: string | undefined;
  #revision: string | undefined;
  #lastFailure: LoadFailure | undefined;
  readonly #logger: Logger;
  readonly #debounceMs: number;
  readonly #recheckMs: number;

  constructor(options: PolicyStoreOptions) {
    this.dir = options.dir;
    const bundleOptions = options.bundleOptions ?? {};
    this.#sources = [
      ...(options.bundles ?? []).map((path) => ({
        name: path.replace(/\/+$/, '') || path,
        load: () => loadBundle(path, { ...bundleOptions, v0Compatible: this.#v0 }),
      })),
      ...(options.sources ?? []),
    ];
    this.#pathSources = (options.bundles ?? []).length;
    this.#logger = options.logger ?? silentLogger;
    this.#debounceMs = options.debounceMs ?? 100;
    this.#recheckMs = options.recheckMs ?? 2000;
    this.#v0 = options.v0Compatible === true;
  }

  readonly #v0: boolean;

  /** The set being served; undefined until the first successful load. */
  get current(): PolicySet | undefined {
    return this.#current;
  }

  /** The bundles being served, in the order given; empty when only a directory is served. */
  get bundles(): readonly BundleInfo[] {
    return this.#bundles;
  }

  /** Every configured bundle source (paths and downloads), activated or not. */
  get sources(): readonly BundleSource[] {
    return this.#sources;
  }

  /** Replaces the downloaded bundles' sources (a configuration discovered anew); call `reload` after. */
  replaceDownloads(sources: readonly BundleSource[]): void {
    this.#sources = [...this.#sources.slice(0, this.#pathSources), ...sources];
  }

  get status(): LoadStatus | undefined {
    return this.#status;
  }

  /**
   * The revision being served: a SHA-256 of the files read (ids and bytes),
   * and of the writes made through the API when there are any. Undefined
   * until the first successful load.
   */
  get revision(): string | undefined {
    return this.#revision;
  }

  /** The latest load that failed, if any did; kept after later loads succeed. */
  get lastFailure(): LoadFailure | undefined {
    return this.#lastFailure;
  }

  /** Loads now, even when the files did not change; resolves to whether the new set is serving. Concurrent calls coalesce. */
  reload(): Promise<boolean> {
    return this.#queueLoad(true);
  }

  /** Reads the directory and loads it when its contents differ from what was last read. */
  #queueLoad(force: boolean): Promise<boolean> {
    if (force) this.#force = true;
    if (this.#reloading) {
      this.#again = true;
      return this.#reloading;
    }
    this.#reloading = (async () => {
      let ok: boolean;
      do {
        this.#again = false;
        const forced = this.#force;
        this.#force = false;
        ok = await this.#loadOnce(forced);
      } while (this.#again);
      return ok;
    })().finally(() => {
      this.#reloading = undefined;
    });
    return this.#reloading;
  }

  /**
   * Watches the directory and reloads after changes settle. Every directory
   * of the tree is watched (not the files: editors that save by rename,
   * `sed -i`, `git checkout` and ConfigMap link swaps replace them), the set
   * of watched directories follows the tree, and every `recheckMs` the
   * contents are hashed again in case an event was missed.
   */
  watch(): void {
    if (this.#watching) return;
    this.#watching = true;
    void this.#syncWatchers();
    this.#recheck = setInterval(() => {
      void this.#syncWatchers();
      void this.#queueLoad(false).catch((error: unknown) => this.#logger.error('policy recheck failed', { dir: this.dir, error: String(error) }));
    }, this.#recheckMs);
    this.#recheck.unref();
  }

  #changed(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      void this.#syncWatchers();
      void this.#queueLoad(false).catch((error: unknown) => this.#logger.error('policy reload failed', { dir: this.dir, error: String(error) }));
    }, this.#debounceMs);
    this.#timer.unref();
  }

  /** Watches each directory of the tree that is not watched yet, and stops watching those gone. */
  async #syncWatchers(): Promise<void> {
    // Bundles are not watched by events (an archive is one file, often replaced whole): the recheck reads them.
    const dirs = new Set(this.dir === undefined ? [] : await policyDirectories(this.dir));
    if (!this.#watching) return;
    for (const [dir, watcher] of this.#watchers) {
      if (!dirs.has(dir)) {
        watcher.close();
        this.#watchers.delete(dir);
      }
    }
    for (const dir of dirs) {
      if (this.#watchers.has(dir)) continue;
      try {
        const watcher = watch(dir, { persistent: false }, () => this.#changed());
        watcher.on('error', (error) => {
          // The directory went away (or was replaced): forget this watcher; the next sync watches what is there now.
          this.#logger.warn('policy watch lost a directory', { dir, error: error.message });
          watcher.close();
          if (this.#watchers.get(dir) === watcher) this.#watchers.delete(dir);
          this.#changed();
        });
        this.#watchers.set(dir, watcher);
      } catch (error) {
        this.#logger.warn('policy directory not watched', { dir, error: (error as Error).message });
      }
    }
  }

  /**
   * Adds or replaces a module (PUT /v1/policies/{id}). Throws
   * `PolicyLoadError` and keeps the old set when the result does not compile.
   */
  async putModule(id: string, source: string): Promise<void> {
    this.#checkModuleScope(id, source);
    await this.#tryOverlay(id, source);
  }

  /**
   * OPA's scope checks for a policy written through the API while bundles are
   * served: neither the module replaced (or deleted) nor the new one may
   * have a package under a bundle's root (a 400 in OPA's words).
   */
  #checkModuleScope(id: string, source: string | null): void {
    if (this.#bundles.length === 0) return;
    const existing = this.#current?.modules.find((m) => m.id === id);
    for (const module of [existing, source === null ? undefined : { id, source, regoVersion: this.#v0 ? (0 as const) : undefined }]) {
      if (module === undefined) continue;
      let path: string[];
      try {
        path = parseModule(module.source, module.id, module.regoVersion ?? 1)
          .package.path.terms.slice(1)
          .map((t) => (t.type === 'string' ? t.value : ''));
      } catch {
        continue; // the compiler reports it
      }
      const refusal = bundleWriteRefusal(this.#bundles, path);
      if (refusal !== undefined) throw new BadRequestError({ code: 'invalid_request', message: refusal });
    }
  }

  /** Removes a module (DELETE /v1/policies/{id}); false when there was none. */
  async deleteModule(id: string): Promise<boolean> {
    if (!this.#current?.modules.some((m) => m.id === id)) return false;
    this.#checkModuleScope(id, null);
    await this.#tryOverlay(id, null);
    return true;
  }

  /**
   * Applies a data write (`PUT`/`PATCH`/`DELETE /v1/data/...`) and recompiles.
   * Throws `DataWriteError` when it cannot apply and `PolicyLoadError` when
   * the result does not compile (a document that clashes with a rule); either
   * way nothing changes.
   */
  async writeData(ops: DataOp[], create: boolean): Promise<void> {
    // As OPA: no write at, under or above a bundle's root (400, before anything is applied).
    for (const op of ops) {
      const refusal = bundleWriteRefusal(this.#bundles, op.path);
      if (refusal !== undefined) throw new DataWriteError(400, refusal);
    }
    const read = await this.#read();
    const files = this.#withOverlay(read);
    // Applied to a copy first, strictly: a write that does not apply is refused here.
    let data = copyPlainData(files.data);
    for (const op of ops) data = applyDataOp(data, op, create);
    checkDataConflicts(files.modules, data);
    this.#dataWrites.push({ ops, create });
    try {
      this.#swap(compilePolicySet({ ...files, data }), read);
    } catch (error) {
      this.#dataWrites.pop();
      throw error;
    }
  }

  close(): void {
    this.#watching = false;
    clearTimeout(this.#timer);
    clearInterval(this.#recheck);
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }

  async #tryOverlay(id: string, source: string | null): Promise<void> {
    const had = this.#overlay.has(id);
    const before = this.#overlay.get(id);
    this.#overlay.set(id, source);
    try {
      const read = await this.#read();
      this.#swap(compilePolicySet(this.#withOverlay(read)), read);
    } catch (error) {
      // Not compiled: the overlay goes back to what it was; the old set keeps serving.
      if (had) this.#overlay.set(id, before ?? null);
      else this.#overlay.delete(id);
      throw error;
    }
  }

  async #loadOnce(force: boolean): Promise<boolean> {
    const files = await this.#read();
    if (!force && files.digest === this.#lastDigest) return this.#status?.ok ?? false;
    this.#lastDigest = files.digest;
    try {
      this.#swap(compilePolicySet(this.#withOverlay(files)), files);
      return true;
    } catch (error) {
      if (!(error instanceof PolicyLoadError)) throw error;
      this.#status = { ok: false, at: new Date(), problems: error.problems };
      this.#lastFailure = this.#status;
      for (const problem of error.problems) this.#logger.error('policy not loaded', { problem: formatProblem(problem) });
      if (this.#current) this.#logger.warn('still serving the last good policies', { loadedAt: this.#current.loadedAt.toISOString() });
      return false;
    }
  }

  #swap(set: PolicySet, read: ReadFiles): void {
    this.#current = set;
    this.#bundles = read.bundles;
    this.#status = { ok: true, at: set.loadedAt, problems: [] };
    this.#revision = this.#revisionOf(read.digest ?? '');
    this.#logger.info('policies loaded', {
      ...(this.dir === undefined ? {} : { dir: this.dir }),
      ...(read.bundles.length === 0 ? {} : { bundles: read.bundles.map((b) => ({ name: b.name, revision: b.revision })) }),
      modules: set.modules.length,
      revision: this.#revision,
    });
  }

  /**
   * Reads the directory and every bundle, whole: their modules side by side,
   * their data merged (the same leaf twice is a problem), bundles whose roots
   * overlap refused as OPA refuses them.
   */
  async #read(): Promise<ReadFiles> {
    const [dir, ...loaded] = await Promise.all([
      this.dir === undefined ? undefined : readPolicyDirectory(this.dir, { v0Compatible: this.#v0 }),
      ...this.#sources.map((source) => source.load()),
    ]);
    const pending = this.#sources.filter((_, i) => loaded[i] === undefined).map((source) => source.name);
    const bundles = loaded.filter((b) => b !== undefined);
    if (bundles.length === 0) return { ...(dir ?? { modules: [], data: {}, problems: [], digest: '' }), bundles: [], pending };
    const merged: ReadFiles = { modules: [], data: {}, problems: [], bundles: bundles.map((b) => b.info), pending };
    const hash = createHash('sha256');
    for (const [files, source] of [...(dir ? [[dir, this.dir] as const] : []), ...bundles.map((b) => [b.files, b.info.name] as const)]) {
      hash.update(`${source}\0${files.digest ?? ''}\0`);
      merged.modules.push(...files.modules);
      merged.problems.push(...files.problems);
      const conflict = mergeAt(merged.data, [], files.data);
      if (conflict !== undefined) merged.problems.push({ file: source ?? '', message: `data.${conflict} is defined in more than one bundle or directory` });
    }
    merged.problems.push(...crossBundleProblems(merged.bundles));
    merged.modules.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const problem of merged.problems) hash.update(`problem\0${problem.file}\0${problem.message}\0`);
    merged.digest = hash.digest('hex');
    return merged;
  }

  /** The files' digest, combined with the API's writes when there are any. */
  #revisionOf(digest: string): string {
    if (this.#overlay.size === 0 && this.#dataWrites.length === 0) return digest;
    const hash = createHash('sha256').update(digest);
    for (const [id, source] of this.#overlay) hash.update(`\0${id}\0${source === null ? '-' : `+${source.length}\0${source}`}`);
    hash.update(`\0${stringifyJSON(fromJS(this.#dataWrites, { maxDepth: Infinity }))}`);
    return hash.digest('hex');
  }

  #withOverlay(files: PolicyFiles): PolicyFiles {
    files = this.#withDataWrites(files);
    if (this.#overlay.size === 0) return files;
    const modules = files.modules.filter((m) => !this.#overlay.has(m.id));
    for (const [id, source] of this.#overlay)
      if (source !== null) modules.push({ id, path: `(api)/${id}`, source, ...(this.#v0 ? { regoVersion: 0 as const } : {}) });
    modules.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { ...files, modules };
  }

  /** The data files with the API's data writes replayed; a write that no longer applies (the file changed) is skipped with a warning. */
  #withDataWrites(files: PolicyFiles): PolicyFiles {
    if (this.#dataWrites.length === 0) return files;
    let data = copyPlainData(files.data);
    for (const write of this.#dataWrites) {
      let next = copyPlainData(data);
      try {
        for (const op of write.ops) next = applyDataOp(next, op, write.create);
        data = next;
      } catch (error) {
        this.#logger.warn('a data write through the API no longer applies to the data files; skipped', { error: (error as Error).message });
      }
    }
    return { ...files, data };
  }
}
