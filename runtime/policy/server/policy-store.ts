import { watch, type FSWatcher } from 'node:fs';
import { silentLogger, type Logger } from '../../core/logger.js';
import { applyDataOp, type DataOp } from './data-writes.js';
import { readPolicyDirectory, type PolicyFiles } from './policy-files.js';
import { compilePolicySet, formatProblem, PolicyLoadError, type PolicyProblem, type PolicySet } from './policy-set.js';

export interface PolicyStoreOptions {
  dir: string;
  logger?: Logger;
  /** Quiet time after a change before reloading; default 100 ms. */
  debounceMs?: number;
}

/** The outcome of the latest load attempt. */
export interface LoadStatus {
  ok: boolean;
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
export class PolicyStore {
  readonly dir: string;
  #current: PolicySet | undefined;
  #status: LoadStatus | undefined;
  #overlay = new Map<string, string | null>();
  /** Data writes through the API, replayed in order over the data files on every load. */
  #dataWrites: Array<{ ops: DataOp[]; create: boolean }> = [];
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #reloading: Promise<boolean> | undefined;
  #again = false;
  readonly #logger: Logger;
  readonly #debounceMs: number;

  constructor(options: PolicyStoreOptions) {
    this.dir = options.dir;
    this.#logger = options.logger ?? silentLogger;
    this.#debounceMs = options.debounceMs ?? 100;
  }

  /** The set being served; undefined until the first successful load. */
  get current(): PolicySet | undefined {
    return this.#current;
  }

  get status(): LoadStatus | undefined {
    return this.#status;
  }

  /** Loads now; resolves to whether the new set is serving. Concurrent calls coalesce. */
  reload(): Promise<boolean> {
    if (this.#reloading) {
      this.#again = true;
      return this.#reloading;
    }
    this.#reloading = (async () => {
      let ok: boolean;
      do {
        this.#again = false;
        ok = await this.#loadOnce();
      } while (this.#again);
      return ok;
    })().finally(() => {
      this.#reloading = undefined;
    });
    return this.#reloading;
  }

  /** Watches the directory and reloads after changes settle. */
  watch(): void {
    if (this.#watcher) return;
    this.#watcher = watch(this.dir, { recursive: true }, () => {
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => void this.reload(), this.#debounceMs);
      this.#timer.unref();
    });
    this.#watcher.on('error', (error) => this.#logger.error('policy watch failed', { dir: this.dir, error: error.message }));
  }

  /**
   * Adds or replaces a module (PUT /v1/policies/{id}). Throws
   * `PolicyLoadError` and keeps the old set when the result does not compile.
   */
  async putModule(id: string, source: string): Promise<void> {
    await this.#tryOverlay(id, source);
  }

  /** Removes a module (DELETE /v1/policies/{id}); false when there was none. */
  async deleteModule(id: string): Promise<boolean> {
    if (!this.#current?.modules.some((m) => m.id === id)) return false;
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
    const files = this.#withOverlay(await readPolicyDirectory(this.dir));
    // Applied to a copy first, strictly: a write that does not apply is refused here.
    let data = structuredClone(files.data);
    for (const op of ops) data = applyDataOp(data, op, create);
    this.#dataWrites.push({ ops, create });
    try {
      this.#swap(compilePolicySet({ ...files, data }));
    } catch (error) {
      this.#dataWrites.pop();
      throw error;
    }
  }

  close(): void {
    clearTimeout(this.#timer);
    this.#watcher?.close();
    this.#watcher = undefined;
  }

  async #tryOverlay(id: string, source: string | null): Promise<void> {
    const had = this.#overlay.has(id);
    const before = this.#overlay.get(id);
    this.#overlay.set(id, source);
    try {
      this.#swap(compilePolicySet(this.#withOverlay(await readPolicyDirectory(this.dir))));
    } catch (error) {
      // Not compiled: the overlay goes back to what it was; the old set keeps serving.
      if (had) this.#overlay.set(id, before ?? null);
      else this.#overlay.delete(id);
      throw error;
    }
  }

  async #loadOnce(): Promise<boolean> {
    try {
      this.#swap(compilePolicySet(this.#withOverlay(await readPolicyDirectory(this.dir))));
      return true;
    } catch (error) {
      if (!(error instanceof PolicyLoadError)) throw error;
      this.#status = { ok: false, at: new Date(), problems: error.problems };
      for (const problem of error.problems) this.#logger.error('policy not loaded', { problem: formatProblem(problem) });
      if (this.#current) this.#logger.warn('still serving the last good policies', { loadedAt: this.#current.loadedAt.toISOString() });
      return false;
    }
  }

  #swap(set: PolicySet): void {
    this.#current = set;
    this.#status = { ok: true, at: set.loadedAt, problems: [] };
    this.#logger.info('policies loaded', { dir: this.dir, modules: set.modules.length });
  }

  #withOverlay(files: PolicyFiles): PolicyFiles {
    files = this.#withDataWrites(files);
    if (this.#overlay.size === 0) return files;
    const modules = files.modules.filter((m) => !this.#overlay.has(m.id));
    for (const [id, source] of this.#overlay) if (source !== null) modules.push({ id, path: `(api)/${id}`, source });
    modules.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { ...files, modules };
  }

  /** The data files with the API's data writes replayed; a write that no longer applies (the file changed) is skipped with a warning. */
  #withDataWrites(files: PolicyFiles): PolicyFiles {
    if (this.#dataWrites.length === 0) return files;
    let data = structuredClone(files.data);
    for (const write of this.#dataWrites) {
      let next = structuredClone(data);
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
