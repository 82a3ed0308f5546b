import { Worker } from 'node:worker_threads';
import type { Encoder } from './encoder.js';

/** What the main thread sends the embedding worker: token sequences to embed together. */
export interface EncoderRequest {
  sequences: number[][];
}
/** What the embedding worker answers. */
export type EncoderReply =
  { type: 'ready' } | { type: 'failed'; message: string } | { type: 'result'; embeddings: Float32Array[] } | { type: 'error'; message: string };

interface Job {
  sequences: number[][];
  signal: AbortSignal | undefined;
  resolve: (embeddings: Float32Array[]) => void;
  reject: (error: unknown) => void;
  onAbort: () => void;
}

/**
 * A BERT encoder in one `worker_threads` Worker, so embedding does not block
 * the event loop. Requests queue and run one at a time; one whose signal
 * fires while it waits is dropped without running. The worker is unref'd
 * while idle and stopped by `close()`.
 *
 * @example
 * const encoder = await EncoderWorker.start({ script: new URL('./embedding-worker.js', import.meta.url), weights, config });
 * const [vector] = await encoder.embed([[101, 7592, 102]]);
 */
export class EncoderWorker implements Encoder {
  readonly #worker: Worker;
  readonly #queue: Job[] = [];
  #current: Job | undefined;
  #closed: Error | undefined;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on('message', (reply: EncoderReply) => this.#reply(reply));
    worker.on('error', (error) => this.#fail(error));
    worker.on('exit', (code) => this.#fail(new Error(`embedding worker exited with code ${code}`)));
    worker.unref();
  }

  /** Starts the worker; resolves once it has loaded the weights. */
  static start(options: { script: URL; weights: string; config: string }): Promise<EncoderWorker> {
    const worker = new Worker(options.script, { workerData: { weights: options.weights, config: options.config }, execArgv: workerExecArgv() });
    return new Promise((resolve, reject) => {
      // Only this function's listeners are removed: Worker keeps internal ones of its own.
      const detach = () => {
        worker.off('error', fail);
        worker.off('exit', exited);
        worker.off('message', ready);
      };
      const fail = (error: unknown) => {
        detach();
        void worker.terminate();
        reject(error);
      };
      const exited = (code: number) => fail(new Error(`embedding worker exited with code ${code}`));
      const ready = (reply: EncoderReply) => {
        detach();
        if (reply.type === 'ready') resolve(new EncoderWorker(worker));
        else fail(new Error(reply.type === 'failed' || reply.type === 'error' ? reply.message : 'embedding worker did not start'));
      };
      worker.on('error', fail);
      worker.on('exit', exited);
      worker.on('message', ready);
    });
  }

  embed(sequences: number[][], signal?: AbortSignal): Promise<Float32Array[]> {
    if (this.#closed) return Promise.reject(this.#closed);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const job: Job = { sequences, signal, resolve, reject, onAbort: () => {} };
      job.onAbort = () => {
        const index = this.#queue.indexOf(job);
        if (index < 0) return;
        this.#queue.splice(index, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', job.onAbort, { once: true });
      this.#queue.push(job);
      this.#next();
    });
  }

  close(): void {
    this.#fail(new Error('embedding model unloaded'));
    void this.#worker.terminate();
  }

  #next(): void {
    if (this.#current || this.#closed) return;
    const job = this.#queue.shift();
    if (!job) {
      this.#worker.unref();
      return;
    }
    this.#current = job;
    this.#worker.ref();
    this.#worker.postMessage({ sequences: job.sequences } satisfies EncoderRequest);
  }

  #reply(reply: EncoderReply): void {
    const job = this.#current;
    if (!job) return;
    this.#current = undefined;
    job.signal?.removeEventListener('abort', job.onAbort);
    if (reply.type === 'result') job.resolve(reply.embeddings);
    else job.reject(new Error(reply.type === 'ready' ? 'unexpected reply from the embedding worker' : reply.message));
    this.#next();
  }

  #fail(error: Error): void {
    if (this.#closed) return;
    this.#closed = error;
    const jobs = this.#current ? [this.#current, ...this.#queue] : [...this.#queue];
    this.#current = undefined;
    this.#queue.length = 0;
    for (const job of jobs) {
      job.signal?.removeEventListener('abort', job.onAbort);
      job.reject(error);
    }
    this.#worker.unref();
  }
}

/** The parent's Node flags, less `--input-type` (a worker started from a file refuses it, as under `node --input-type=module -e`). */
function workerExecArgv(): string[] {
  const args: string[] = [];
  for (let i = 0; i < process.execArgv.length; i++) {
    const arg = process.execArgv[i]!;
    if (arg === '--input-type') i++;
    else if (!arg.startsWith('--input-type=')) args.push(arg);
  }
  return args;
}
