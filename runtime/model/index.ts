/**
 * The local model runtime: Ollama's API over llama.cpp, the model store
 * and pulling models.
 *
 * This file is the complete public surface of `framework_core/model`: names are exported
 * one by one, never with a wildcard, and a snapshot test keeps the list
 * deliberate (test/boundaries/exports.test.ts).
 */
export { createModelServer, MODEL_SERVER_VERSION, type ModelServer, type ModelServerOptions } from './create-model-server.js';
export { startModelServer, type RunningModelServer } from './start-model-server.js';
export { ModelStore, resolveModelsDir, sha256File, ModelManifestSchema, type ModelManifest, type StoredModel } from './model-store.js';
export { pullModel, type PullModelOptions, type PullProgress } from './pull-model.js';
export { PullProgressView, describePullProgress, type ProgressOutput } from './pull-progress-view.js';
export { ollamaPullLines, PULL_NOT_FOUND, type OllamaPullLine } from './ollama-pull.js';
export { parseHfUri, hfResolveUrl, resolveHfEndpoint, type HfFileRef } from './hf-source.js';
export { resolveOllamaHost } from './ollama-source.js';
export { DEFAULT_KEEP_ALIVE_MS, KeepAliveTimers, parseKeepAlive } from './keep-alive.js';
export {
  DEFAULT_CHAT_MODEL,
  DEFAULT_EMBEDDING_MODEL,
  KNOWN_MODELS,
  canonicalModelName,
  findKnownModel,
  type CompanionFile,
  type KnownModel,
  type ModelKind,
  type PypiWheelSource,
} from './known-models.js';
export { EmbeddingEngine, EMBEDDING_CONTEXT_LENGTH, type EmbedResult } from './embedding-engine.js';
export { LlamaEngine, type EngineMessage, type EngineOptions, type EngineRequest, type EngineResult } from './llama-engine.js';
export { ModelPullError } from './model-pull-error.js';
export { ModelRequestError } from './model-request-error.js';
export { parseModelfile, modelfileRequest, renderModelfile, ModelfileError, type ModelfileCommand, type ModelfileRequest } from './modelfile.js';
export { ModelServerClient, type ChatMessage, type ChatReply, type PsResponse, type ShowResponse } from './model-server-client.js';
export { ModelServerError } from './model-server-error.js';
export { isValidModelName } from './model-name.js';
