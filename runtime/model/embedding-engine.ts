import { dirname, join } from 'node:path';
import { BertEncoder } from './bert-encoder.js';
import { BertTokenizer } from './bert-tokenizer.js';
import { ModelRequestError } from './model-request-error.js';
import type { StoredModel } from './model-store.js';

/** Longest input, in tokens with `[CLS]` and `[SEP]` (sentence-transformers' `max_seq_length` for MiniLM). */
export const EMBEDDING_CONTEXT_LENGTH = 256;

export interface EmbedResult {
  /** One L2-normalised vector per input. */
  embeddings: number[][];
  /** Tokens read, over all inputs. */
  promptEvalCount: number;
  /** Nanoseconds spent loading the model for this request (0 when it was loaded). */
  loadDuration: number;
}

/**
 * A sentence-embedding model of the store (a BERT `model.safetensors` with
 * its `tokenizer.json` and `config.json` beside it), loaded on first use.
 *
 * @example
 * const engine = new EmbeddingEngine({ model: await store.get('all-minilm') });
 * const { embeddings } = await engine.embed({ inputs: ['hello'], truncate: true });
 */
export class EmbeddingEngine {
  readonly model: StoredModel;
  loadedAt: Date | undefined;
  #loading: Promise<{ tokenizer: BertTokenizer; encoder: BertEncoder }> | undefined;

  constructor(options: { model: StoredModel }) {
    this.model = options.model;
  }

  get contextSize(): number {
    return EMBEDDING_CONTEXT_LENGTH;
  }

  /** Loads the model; resolves to the nanoseconds it took (0 when already loaded). */
  async load(): Promise<number> {
    if (this.#loading) {
      await this.#loading;
      return 0;
    }
    const started = performance.now();
    const folder = dirname(this.model.path);
    this.#loading = Promise.all([BertTokenizer.load(join(folder, 'tokenizer.json')), BertEncoder.load({ weights: this.model.path, config: join(folder, 'config.json') })]).then(
      ([tokenizer, encoder]) => ({ tokenizer, encoder }),
    );
    this.#loading.catch(() => (this.#loading = undefined));
    await this.#loading;
    this.loadedAt = new Date();
    return Math.round((performance.now() - started) * 1e6);
  }

  /** Embeds each input; with `truncate: false` an input longer than the context is a 400. */
  async embed(request: { inputs: readonly string[]; truncate: boolean; signal?: AbortSignal }): Promise<EmbedResult> {
    const loadDuration = await this.load();
    const { tokenizer, encoder } = (await this.#loading)!;
    const embeddings: number[][] = [];
    let promptEvalCount = 0;
    for (const input of request.inputs) {
      request.signal?.throwIfAborted();
      const ids = tokenizer.encode(input, { maxTokens: Math.min(EMBEDDING_CONTEXT_LENGTH, encoder.config.max_position_embeddings), truncate: request.truncate });
      if (!ids) throw new ModelRequestError({ status: 400, message: 'input exceeds maximum context length' });
      promptEvalCount += ids.length;
      embeddings.push(Array.from(encoder.embed(ids)));
      // Let other requests and I/O run between inputs; the encoder is synchronous.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return { embeddings, promptEvalCount, loadDuration };
  }

  unload(): void {
    this.#loading = undefined;
    this.loadedAt = undefined;
  }
}
