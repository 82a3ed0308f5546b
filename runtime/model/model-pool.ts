import type { EmbeddingEngine } from './embedding-engine.js';
import type { LlamaEngine } from './llama-engine.js';
import type { ModelStore } from './model-store.js';

/** What the OpenAI routes share with Ollama's: the store, the loaded engines and their keep-alive. */
export interface ModelPool {
  store: ModelStore;
  /** The chat engine of a model; rejects with a 404 or 400 `ModelRequestError`. */
  chatEngine(name: string): Promise<LlamaEngine>;
  /** The embedding engine of a model; rejects with a 404 or 400 `ModelRequestError`. */
  embedder(name: string): Promise<EmbeddingEngine>;
  /** Marks the model in use under the default keep-alive; call the result when the request ends. */
  hold(name: string): () => void;
  /** Make a reply to a user message that comes with tools (and no `tool_choice`) a call (`ModelServerOptions.forceToolCall`). */
  forceToolCall?: boolean;
}
