import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readBertConfig } from './bert-encoder.js';
import { BertTokenizer } from './bert-tokenizer.js';
import type { Encoder } from './encoder.js';
import { EncoderWorker } from './encoder-worker.js';
import { InProcessEncoder } from './in-process-encoder.js';
import { ModelRequestError } from './model-request-error.js';
import type { StoredModel } from './model-store.js';

/** Longest input, in tokens with `[CLS]` and `[SEP]` (sentence-transformers' `max_seq_length` for MiniLM). */
export const EMBEDDING_CONTEXT_LENGTH = 256;

/** Most tokens sent to the encoder in one batch (bounds its working memory). */
const BATCH_TOKENS = 2048;

/** The worker script, beside this module once compiled; absent when running the TypeScript sources. */
const WORKER_SCRIPT = new URL('./embedding-worker.js', import.meta.url);

export interface EmbedResult {
  /** One L2-normalised vector per input. */
  embeddings: number[][];
  /** Tokens read, over all inputs. */
  promptEvalCount: number;
  /** Nanoseconds spent loading the model for this request (0 when it was loaded). */
  loadDuration: number;
}

interface Loaded {
  tokenizer: BertTokenizer;
  maxTokens: number;
  encoder: Encoder;
}

/**
 * A sentence-embedding model of the store (a BERT `model.safetensors` with
 * its `tokenizer.json` and `config.json` beside it), loaded on first use.
 * The encoder runs in a worker thread (from the compiled `dist/`), so a long
 * input does not block the event loop; requests queue there one at a time.
 *
 * @example
 * const engine = new EmbeddingEngine({ model: await store.get('all-minilm') });
 * const { embeddings } = await engine.embed({ inputs: ['hello'], truncate: true });
 */
export class EmbeddingEngine {
  readonly model: StoredModel;
  loadedAt: Date | undefined;
  #loading: Promise<Loaded> | undefined;

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
    const files = { weights: this.model.path, config: join(folder, 'config.json') };
    const encoder: Promise<Encoder> = existsSync(fileURLToPath(WORKER_SCRIPT))
      ? EncoderWorker.start({ script: WORKER_SCRIPT, ...files })
      : InProcessEncoder.load(files);
    const loading = Promise.all([BertTokenizer.load(join(folder, 'tokenizer.json')), readBertConfig(files.config), encoder]).then(
      ([tokenizer, config, encoder]) => ({
        tokenizer,
        maxTokens: Math.min(EMBEDDING_CONTEXT_LENGTH, config.max_position_embeddings),
        encoder,
      }),
    );
    // A failed load closes the encoder if it started, and lets the next request try again.
    loading.catch(() => {
      void encoder.then(
        (e) => e.close(),
        () => {},
      );
      if (this.#loading === loading) this.#loading = undefined;
    });
    this.#loading = loading;
    await loading;
    this.loadedAt = new Date();
    return Math.round((performance.now() - started) * 1e6);
  }

  /**
   * Refuses (400) a `dimensions` other than the model's own: shortening a
   * vector keeps its meaning only for models trained for it, which ours are not.
   */
  checkDimensions(dimensions: number | undefined): void {
    const own = this.model.embeddingLength;
    if (dimensions === undefined || dimensions === own) return;
    throw new ModelRequestError({
      status: 400,
      param: 'dimensions',
      message: `model '${this.model.name}' makes ${own ?? 'fixed-size'} dimension vectors and cannot shorten them; leave dimensions out${own ? ` or set it to ${own}` : ''}`,
    });
  }

  /** Embeds each input; with `truncate: false` an input longer than the context is a 400. */
  async embed(request: { inputs: readonly string[]; truncate: boolean; signal?: AbortSignal }): Promise<EmbedResult> {
    const loadDuration = await this.load();
    const loading = this.#loading;
    if (!loading) throw new Error('embedding model unloaded');
    const { tokenizer, maxTokens, encoder } = await loading;
    request.signal?.throwIfAborted();
    const sequences = request.inputs.map((input) => {
      const ids = tokenizer.encode(input, { maxTokens, truncate: request.truncate });
      if (!ids) throw new ModelRequestError({ status: 400, message: 'input exceeds maximum context length' });
      return ids;
    });
    const promptEvalCount = sequences.reduce((sum, ids) => sum + ids.length, 0);
    const embeddings: number[][] = [];
    for (const batch of batches(sequences)) {
      request.signal?.throwIfAborted();
      for (const vector of await encoder.embed(batch, request.signal)) embeddings.push(Array.from(vector));
    }
    return { embeddings, promptEvalCount, loadDuration };
  }

  /** Frees the model: stops the worker thread; requests in its queue reject. */
  unload(): void {
    const loading = this.#loading;
    this.#loading = undefined;
    this.loadedAt = undefined;
    void loading?.then(
      ({ encoder }) => encoder.close(),
      () => {},
    );
  }
}

/** The sequences in order, grouped into batches of at most `BATCH_TOKENS` tokens (a longer sequence alone). */
function* batches(sequences: number[][]): Generator<number[][]> {
  let batch: number[][] = [];
  let tokens = 0;
  for (const ids of sequences) {
    if (batch.length > 0 && tokens + ids.length > BATCH_TOKENS) {
      yield batch;
      batch = [];
      tokens = 0;
    }
    batch.push(ids);
    tokens += ids.length;
  }
  if (batch.length > 0) yield batch;
}
