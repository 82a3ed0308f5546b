import { availableParallelism, loadavg } from 'node:os';

/** How long after its last generation the engine's own threads still count in the 1-minute load average. */
const OWN_LOAD_MEMORY_MS = 60_000;

/**
 * Threads for llama.cpp's next evaluations, given how busy the machine is.
 * llama.cpp's workers spin at a barrier after every step: when other
 * processes hold the cores they wait for a descheduled sibling, and two
 * threads on a 2-core machine at load 16 generated 7 times slower than one
 * (SmolLM2, 20 tokens: 33 s against 4.5 s). So the engine uses the cores
 * the others leave free, at least one and at most `limit`: `others` is the
 * load average less the engine's own threads.
 *
 * @example
 * threadsForLoad({ limit: 2, cores: 2, load: 16, own: 2 }); // 1
 * threadsForLoad({ limit: 2, cores: 2, load: 2, own: 2 }); // 2 (the load is the engine's own)
 */
export function threadsForLoad(options: { limit: number; cores: number; load: number; own: number }): number {
  const others = Math.max(0, options.load - options.own);
  return Math.max(1, Math.min(options.limit, Math.round(options.cores - others)));
}

export interface CpuThreadsOptions {
  /** A fixed thread count: used as it is, whatever the load. */
  threads?: number;
  /** The 1-minute load average; default `os.loadavg()[0]` (injectable for tests). */
  loadAverage?: () => number;
}

/**
 * The thread count of one engine: fixed when configured, otherwise adapted
 * to the machine's load before each generation (`next()`), never above the
 * number of cores.
 */
export class CpuThreads {
  /** The most threads the engine uses (its context is made for this many). */
  readonly limit: number;
  readonly #fixed: boolean;
  readonly #loadAverage: () => number;
  #current: number;
  #lastBusy = Number.NEGATIVE_INFINITY;

  constructor(options: CpuThreadsOptions = {}) {
    this.#fixed = options.threads !== undefined;
    this.limit = Math.max(1, Math.floor(options.threads ?? availableParallelism()));
    this.#loadAverage = options.loadAverage ?? (() => loadavg()[0] ?? 0);
    this.#current = this.limit;
  }

  /** Threads in use now. */
  get current(): number {
    return this.#current;
  }

  /** The count for the generation about to start. */
  next(now = Date.now()): number {
    if (!this.#fixed) {
      const own = now - this.#lastBusy < OWN_LOAD_MEMORY_MS ? this.#current : 0;
      this.#current = threadsForLoad({ limit: this.limit, cores: this.limit, load: this.#loadAverage(), own });
    }
    this.#lastBusy = now;
    return this.#current;
  }
}
