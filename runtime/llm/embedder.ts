import type { Ollama } from 'ollama';
import { ModelRuntimeError } from './errors/model-runtime-error.js';
import { ollamaModule } from './ollama-client.js';

/** Turns texts into embedding vectors. */
export interface Embedder {
  /** Model name, for messages. */
  readonly model: string;
  /** One vector per text, in order. Rejects with `ModelRuntimeError` (`model_runtime_unavailable`) when it cannot embed. */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
}

/**
 * Embeds through Ollama's `/api/embed` with the official client: our
 * `framework-cli model serve` (model `all-minilm`) or a real Ollama.
 *
 * @example
 * const embedder = new OllamaEmbedder({ host: 'http://127.0.0.1:11434', model: 'all-minilm' });
 * const [vector] = await embedder.embed(['hello']);
 */
export class OllamaEmbedder implements Embedder {
  readonly model: string;
  readonly host: string;
  /** Made at the first embedding (the client's module is loaded then: see `ollamaModule`). */
  #client: Ollama | undefined;

  constructor(options: { host: string; model: string }) {
    this.host = options.host.replace(/\/+$/, '');
    this.model = options.model;
  }

  async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<number[][]> {
    if (texts.length === 0) return [];
    const { Ollama } = await ollamaModule();
    let embeddings: number[][];
    try {
      // The client's abort() cancels all its requests, so a cancellable call gets its own client.
      const client = options.signal ? new Ollama({ host: this.host }) : (this.#client ??= new Ollama({ host: this.host }));
      const request = client.embed({ model: this.model, input: [...texts] });
      const onAbort = () => client.abort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        ({ embeddings } = await request);
      } finally {
        options.signal?.removeEventListener('abort', onAbort);
      }
    } catch (cause) {
      const detail = cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause);
      throw new ModelRuntimeError({
        code: 'model_runtime_unavailable',
        baseUrl: this.host,
        message: `Could not embed with model "${this.model}" at ${this.host}: ${detail}. Start the model runtime (framework-cli model serve) and pull the model (framework-cli model pull ${this.model}).`,
        cause,
      });
    }
    if (!Array.isArray(embeddings) || embeddings.length !== texts.length) {
      throw new ModelRuntimeError({
        code: 'model_error',
        baseUrl: this.host,
        message: `The model runtime at ${this.host} answered ${Array.isArray(embeddings) ? embeddings.length : 'no'} embeddings for ${texts.length} text(s).`,
      });
    }
    return embeddings;
  }
}
