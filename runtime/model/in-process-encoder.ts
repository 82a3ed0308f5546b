import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { BertEncoder } from './bert-encoder.js';
import type { Encoder } from './encoder.js';

/**
 * A `BertEncoder` on the calling thread, used when the compiled worker script
 * is not there (running the TypeScript sources, as the tests do). Each call
 * blocks the event loop while it runs, then yields once.
 *
 * @example
 * const encoder = await InProcessEncoder.load({ weights: 'model.safetensors', config: 'config.json' });
 */
export class InProcessEncoder implements Encoder {
  readonly #encoder: BertEncoder;

  constructor(options: { encoder: BertEncoder }) {
    this.#encoder = options.encoder;
  }

  static async load(options: { weights: string; config: string }): Promise<InProcessEncoder> {
    return new InProcessEncoder({ encoder: await BertEncoder.load(options) });
  }

  async embed(sequences: number[][], signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    const embeddings = this.#encoder.embedBatch(sequences);
    // Let other requests and I/O run between batches.
    await yieldToEventLoop();
    return embeddings;
  }

  close(): void {}
}
