// The public surface of framework_core, exported name by name.

// Core: programming model, responses, configuration, errors.
export {
  FrameworkCore,
  ROUTE_TO_TASK,
  type ExecuteTaskOptions,
  type FrameworkCoreOptions,
  type RunOptions,
  type RunningAgent,
  type StepArgs,
  type StepContext,
  type StepFunction,
  type StepOptions,
  type StepResult,
  type TaskContext,
  type TaskFunction,
  type TaskInfo,
  type TaskOptions,
} from './core/framework-core.js';
export { FrameworkAgent, type AgentTool, type FrameworkAgentOptions } from './core/framework-agent.js';
export { AgentResponse, PLAN_CONFIRMATION, type AgentResponseType } from './core/agent-response.js';
export { parseTaskInput, DEFAULT_CONTEXT_ID, type ParsedTaskInput, type TaskQuery } from './core/task-input.js';
export {
  loadAgentConfig,
  loadSessionConfig,
  A2A_VALIDATION_MODES,
  CONFIG_DEFAULTS,
  type A2aValidationMode,
  type AgentConfig,
  type Env,
  type LogLevel,
  type SessionConfig,
} from './core/config.js';
export { LlmConfigSchema, type LlmConfig } from './core/llm-config.js';
export type { ContextStore } from './core/context-store.js';
export type { JsonObject, JsonPrimitive, JsonValue } from './core/json.js';
export { createLogger, silentLogger, type Logger } from './core/logger.js';
export { loadAgentModule, type AgentModule } from './core/load-agent-module.js';
export { FrameworkError, type FrameworkErrorOptions } from './core/framework-error.js';
export { ERROR_CODES, errorCodeInfo, toPublicError, type ErrorCode, type ErrorCodeInfo } from './core/error-codes.js';
export { AbortedError } from './core/errors/aborted-error.js';
export { BadRequestError, type BadRequestCode } from './core/errors/bad-request-error.js';
export { ConfigError, type ConfigIssue } from './core/errors/config-error.js';
export { ModelNotFoundError } from './core/errors/model-not-found-error.js';
export { ModelRuntimeError } from './core/errors/model-runtime-error.js';
export { SessionInvalidError } from './core/errors/session-invalid-error.js';
export { StoreUnavailableError } from './core/errors/store-unavailable-error.js';
export { UnknownStepError } from './core/errors/unknown-step-error.js';
export { UnknownTaskError } from './core/errors/unknown-task-error.js';

// HTTP front door.
export {
  createFrontDoor,
  QueryRequestSchema,
  DEFAULT_MAX_BODY_BYTES,
  type AgentIdentity,
  type FrontDoorOptions,
  type QueryRequest,
} from './http/front-door.js';
export { createMinimalFrontDoor, type MinimalFrontDoorOptions } from './http/minimal-front-door.js';
export { runAgent, type RunAgentOptions } from './http/run-agent.js';
export { listen, type Listening } from './http/listen.js';
export { encodeSseEvent, encodeSseComment, SSE_HEADERS, type SseEvent } from './http/sse.js';

// Sessions.
export type { Session, SessionStore, StartedSession } from './sessions/session-store.js';
export { MemorySessionStore, type MemorySessionStoreOptions } from './sessions/memory-session-store.js';
export { KvSessionStore, type KvSessionStoreOptions } from './sessions/kv-session-store.js';
export { createSessionStore, type SessionStoreConfig } from './sessions/create-session-store.js';

// LLM calls and conversation memory.
export { invoke, invokeStream, type InvokeOptions } from './llm/invoke.js';
export { createLanguageModel } from './llm/create-language-model.js';
export type { ChatFormat, ChatRequest, ChatResult, LanguageModel } from './llm/language-model.js';
export type { ChatMessage, ThreadMemory } from './llm/thread-memory.js';
export { MemoryThreadMemory } from './llm/memory-thread-memory.js';
export { KvThreadMemory } from './llm/kv-thread-memory.js';
export { createThreadMemory, getDefaultThreadMemory, setDefaultThreadMemory } from './llm/create-thread-memory.js';

// Policy engine (Rego) and its OPA-compatible server.
export {
  compilePolicy,
  CompiledPolicy,
  PreparedQuery,
  PolicyError,
  BuiltinError,
  BuiltinRegistry,
  createDefaultRegistry,
  defaultRegistry,
  fromJS,
  toJS,
  parseJSON,
  stringifyJSON,
  runConformance,
  type Bindings,
  type BuiltinContext,
  type BuiltinDefinition,
  type CompilePolicyOptions,
  type ConformanceReport,
  type PolicyErrorCode,
  type QueryOptions,
  type Value as RegoValue,
} from './policy/index.js';
export { startPolicyServer, type RunningPolicyServer, type StartPolicyServerOptions } from './policy/server/start-policy-server.js';
export { createPolicyServer, type PolicyServerOptions } from './policy/server/opa-server.js';
export { PolicyStore, type LoadStatus, type PolicyStoreOptions } from './policy/server/policy-store.js';
export { DecisionLog, type DecisionLogOptions } from './policy/server/decision-log.js';
export { readPolicyDirectory, type PolicyFiles, type PolicySource } from './policy/server/policy-files.js';
export { compilePolicySet, formatProblem, PolicyLoadError, type PolicyProblem, type PolicySet } from './policy/server/policy-set.js';
export { loadPolicySet, readInputFile } from './policy/tools/load-policies.js';
export { runPolicyTests, type PolicyTestReport, type PolicyTestResult } from './policy/tools/run-policy-tests.js';
export { evalQuery, type EvalOutput } from './policy/tools/eval-query.js';
export { createModelServer, MODEL_SERVER_VERSION, type ModelServer, type ModelServerOptions } from './model/create-model-server.js';
export { startModelServer, type RunningModelServer } from './model/start-model-server.js';
export { ModelStore, resolveModelsDir, sha256File, ModelManifestSchema, type ModelManifest, type StoredModel } from './model/model-store.js';
export { pullModel, type PullModelOptions, type PullProgress } from './model/pull-model.js';
export { PullProgressView, describePullProgress, type ProgressOutput } from './model/pull-progress-view.js';
export { ollamaPullLines, PULL_NOT_FOUND, type OllamaPullLine } from './model/ollama-pull.js';
export { parseHfUri, hfResolveUrl, resolveHfEndpoint, type HfFileRef } from './model/hf-source.js';
export { resolveOllamaHost } from './model/ollama-source.js';
export { DEFAULT_KEEP_ALIVE_MS, KeepAliveTimers, parseKeepAlive } from './model/keep-alive.js';
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
} from './model/known-models.js';
export { EmbeddingEngine, EMBEDDING_CONTEXT_LENGTH, type EmbedResult } from './model/embedding-engine.js';
export { LlamaEngine, type EngineMessage, type EngineOptions, type EngineRequest, type EngineResult } from './model/llama-engine.js';
export { ModelPullError } from './model/model-pull-error.js';
export { ModelRequestError } from './model/model-request-error.js';
