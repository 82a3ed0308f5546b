import { gauge } from '../core/telemetry/service-metrics.js';
import { ModelRequestError } from './model-request-error.js';

interface Waiting {
  /** Jobs of one `key` may run side by side; `undefined` marks an exclusive job. */
  key: number | undefined;
  start: () => void;
  /** Set for generations: removes the entry when its client goes while it waits. */
  drop?: () => void;
}

/**
 * First-come, first-served admission to a model's `slots` context sequences
 * (Ollama's `OLLAMA_NUM_PARALLEL`). Up to `slots` jobs with the same `key`
 * (the context size they need) run at once; a job with another key waits
 * until the running ones end, since the context is then made anew. Exclusive
 * jobs (load, unload) run alone. Past `maxQueue` waiting generations, new
 * ones are refused with a 503, as Ollama does. A waiting generation whose
 * `signal` aborts leaves the line at once and rejects with the signal's reason.
 *
 * @example
 * const slots = new SequenceSlots({ slots: 2, maxQueue: 16 });
 * const text = await slots.run({ key: 2048, signal, work: () => generate() });
 */
/** Generations queued for a sequence across this process's models (/metrics: the model runtime's queue depth). */
const waitingGenerations = gauge('model_queue_depth', 'Generations waiting for a free sequence of a loaded model.');

export class SequenceSlots {
  readonly slots: number;
  readonly #maxQueue: number;
  readonly #line: Waiting[] = [];
  #running = 0;
  #runningKey: number | undefined;
  #exclusive = false;

  constructor(options: { slots: number; maxQueue: number }) {
    this.slots = options.slots;
    this.#maxQueue = options.maxQueue;
  }

  /** Generations running now. */
  get running(): number {
    return this.#running;
  }

  /** Generations waiting for a sequence. */
  get waiting(): number {
    return this.#line.filter((w) => w.key !== undefined).length;
  }

  /** Runs `work` in a sequence slot once one is free; rejects with a 503 when too many wait. */
  run<T>(options: { key: number; signal?: AbortSignal; work: () => Promise<T> }): Promise<T> {
    const { key, signal, work } = options;
    if (signal?.aborted) return Promise.reject(signal.reason as unknown);
    const free = this.#line.length === 0 && this.#admits(key);
    if (!free && this.waiting >= this.#maxQueue) {
      return Promise.reject(new ModelRequestError({ status: 503, message: 'server busy, please try again. maximum pending requests exceeded' }));
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => entry.drop?.();
      const entry: Waiting = {
        key,
        start: () => {
          waitingGenerations.dec();
          signal?.removeEventListener('abort', onAbort);
          this.#running += 1;
          this.#runningKey = key;
          work()
            .then(resolve, reject)
            .finally(() => {
              this.#running -= 1;
              if (this.#running === 0) this.#runningKey = undefined;
              this.#pump();
            });
        },
        drop: () => {
          const at = this.#line.indexOf(entry);
          if (at < 0) return;
          this.#line.splice(at, 1);
          waitingGenerations.dec();
          reject(signal!.reason as unknown);
          this.#pump();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      waitingGenerations.inc();
      this.#line.push(entry);
      this.#pump();
    });
  }

  /** Runs `work` alone, after the jobs before it and before the ones after it (loading and unloading the model). */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#line.push({
        key: undefined,
        start: () => {
          this.#exclusive = true;
          work()
            .then(resolve, reject)
            .finally(() => {
              this.#exclusive = false;
              this.#pump();
            });
        },
      });
      this.#pump();
    });
  }

  #admits(key: number | undefined): boolean {
    if (this.#exclusive) return false;
    if (key === undefined) return this.#running === 0;
    return this.#running === 0 || (this.#running < this.slots && key === this.#runningKey);
  }

  /** Starts jobs from the head of the line while they may run; a job that must wait holds the ones behind it. */
  #pump(): void {
    while (this.#line.length > 0 && this.#admits(this.#line[0]!.key)) this.#line.shift()!.start();
  }
}
