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
  loadA2aConfig,
  A2A_VALIDATION_MODES,
  CONFIG_DEFAULTS,
  type A2aConfig,
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
export { PermissionError } from './core/errors/permission-error.js';
export { SignatureError, type SignatureFailure } from './core/errors/signature-error.js';
export { AgentNotReadyError } from './core/errors/agent-not-ready-error.js';
export { AgentCardError } from './core/errors/agent-card-error.js';
export { PolicyUnavailableError } from './core/errors/policy-unavailable-error.js';
export { AgentHttpError } from './core/errors/agent-http-error.js';
export { StreamInterruptedError } from './core/errors/stream-interrupted-error.js';

// Agent-to-agent calls (A2A): cards, validated and signed connections, workflows, the endpoint.
export {
  loadAgentCard,
  parseAgentCard,
  cardFromConfig,
  cardRef,
  cardUrl,
  AgentCardFileSchema,
  A2A_PROTOCOL_VERSION,
  type AgentCardFile,
  type AgentCardMeta,
} from './a2a/agent-card.js';
export { agentConnection, type AgentConnectionOptions } from './a2a/agent-connection.js';
export { chunkFromStream, chunksFromStream, chunkFromTask, isFinalState, type A2aChunk, type A2aTaskState } from './a2a/a2a-chunk.js';
export { A2AResponse, NO_RESPONSE } from './a2a/a2a-response.js';
export { AgentInteractionFlow, InteractionFlowNode, NODE_LABEL_LENGTH, type FlowChunk } from './a2a/interaction-flow.js';
export { waitForAgent } from './a2a/wait-for-agent.js';
export { A2aValidator, createValidator, getValidator, accessCheckerFor, type A2aValidatorOptions, type ValidationResult } from './a2a/validator.js';
export { GuardianAccessChecker, OpaAccessChecker, type AccessChecker } from './a2a/access-checker.js';
export { accessDecisionFrom, decideAccess, A2A_ACCESS_PACKAGE, type AccessDecision } from './a2a/access-decision.js';
export { OpaPolicyClient, isPolicyPath, type PolicyClient } from './a2a/policy-client.js';
export { A2aValidationInputSchema, buildValidationInput, MESSAGE_PREVIEW_CHARS, type A2aValidationInput, type AgentRef } from './a2a/validation-input.js';
export { createAuditLog, disabledAuditLog, auditEvent, messageDigest, type AuditDecision, type AuditEvent, type AuditLog } from './a2a/audit-log.js';
export { signingFetch } from './a2a/signing-fetch.js';
export { createSigningKey, decodeSecret, generateSecret, type SigningKey } from './a2a/signing/signing-key.js';
export { KeyRing, type KeyRingOptions } from './a2a/signing/key-ring.js';
export { loadKeyRing, type LoadKeyRingOptions } from './a2a/signing/load-key-ring.js';
export {
  canonicalRequest,
  signRequest,
  verifyRequest,
  MAX_CLOCK_SKEW_SECONDS,
  SIGNATURE_HEADERS,
  SIGNATURE_SCHEME,
  type SignRequestOptions,
  type VerifiedCaller,
  type VerifyRequestOptions,
} from './a2a/signing/request-signature.js';
export type { NonceStore } from './a2a/signing/nonce-store.js';
export { MemoryNonceStore } from './a2a/signing/memory-nonce-store.js';
export { KvNonceStore } from './a2a/signing/kv-nonce-store.js';
export { createNonceStore } from './a2a/signing/create-nonce-store.js';
export { FrameworkExecutor } from './a2a/framework-executor.js';
export { mountA2aEndpoint, AGENT_CARD_PATH, type A2aEndpointOptions } from './a2a/a2a-endpoint.js';
export { A2aRequestGuard, type A2aRequestGuardOptions, type AdmittedCaller } from './a2a/request-guard.js';
export { createA2aServer, type A2aServer } from './a2a/a2a-server.js';
export { KvTaskStore } from './a2a/kv-task-store.js';
export { createA2aTaskStore, type A2aTaskStoreConfig, type ClosableTaskStore } from './a2a/create-a2a-task-store.js';

// The Semantic Layer: MCP server over a vector store, client toolkit, retrieval-augmented answers.
export type { CollectionName, SearchOptions, StoredRecord, VectorHit, VectorRecord, VectorStore } from './semantic/vector-store.js';
export { isValidVector } from './semantic/vector-store.js';
export { LanceVectorStore } from './semantic/lance-vector-store.js';
export { WeaviateVectorStore } from './semantic/weaviate-vector-store.js';
export { VectorStoreUnavailableError } from './semantic/vector-store-unavailable-error.js';
export { createVectorStore } from './semantic/create-vector-store.js';
export { OllamaEmbedder, type Embedder } from './semantic/embedder.js';
export { CardIndex, cardId, cardText, type CardOnDisk } from './semantic/card-index.js';
export { SemanticService, type SemanticServiceOptions } from './semantic/semantic-service.js';
export { createSemanticLayerApp, MCP_PATH, type SemanticLayerAppOptions } from './semantic/create-semantic-layer.js';
export { startSemanticLayer, type RunningSemanticLayer } from './semantic/start-semantic-layer.js';
export { loadSemanticConfig, SEMANTIC_DEFAULTS, type SemanticConfig } from './semantic/semantic-config.js';
export { MCPToolkit, DEFAULT_SEMANTIC_LAYER_URL, type McpToolkitOptions, type ToolOutcome } from './semantic/mcp-toolkit.js';
export { TOOL_NAMES, type AgentCardJson, type DocumentHit } from './semantic/tool-contract.js';
export { answerFromDocuments, contextFrom, ragPrompt, registerRagStep, NO_INFORMATION_ANSWER, RAG_MAX_RESULTS, type DocumentSearch, type RagSource } from './semantic/rag.js';
export { stripSecrets, findSecretField, isSecretName } from './core/secret-fields.js';

// Planning with human confirmation.
export {
  METHODOLOGIES,
  PLAN_CONFIRM_APPROVE,
  PLAN_CONFIRM_REJECT,
  PLAN_CONFIRM_MODIFY,
  PlanResultSchema,
  PendingPlanSchema,
  PENDING_PLAN_KEY,
  AWAITING_MODIFICATION_KEY,
  type Methodology,
  type PlanResult,
  type PendingPlan,
  type PlanConfirmationClass,
  type PlanConfirmationResult,
  type DisplayPlan,
  type DisplayTask,
} from './planning/plan-records.js';
export { classifyPlanConfirmationReply, DEFAULT_MAX_PLAN_AGE_MS, type ClassifyPlanConfirmationOptions } from './planning/classify-plan-confirmation-reply.js';
export { CONFIRMATION_VOCABULARY, type ConfirmationVocabulary } from './planning/confirmation-vocabulary.js';
export { recordPendingPlan, clearPendingPlan, markAwaitingModification, type UpdateSessionContext } from './planning/pending-plan.js';
export { formatPlanSummary, toDisplayPlan, guessLanguage, type SummaryLanguage } from './planning/plan-summary.js';
export { listMethodologies, selectMethodology, DEFAULT_METHODOLOGY, type MethodologySelection, type SelectMethodologyOptions } from './planning/methodologies.js';
export { cleanLlmJson } from './planning/clean-llm-json.js';
export { generatePlan, type GeneratePlanOptions } from './planning/generate-plan.js';
export { registerPlannerTask, defaultStepStatus, type PlannerOptions, type ActionOutcome } from './planning/planner-task.js';
export { InvalidModelOutputError } from './core/errors/invalid-model-output-error.js';
export { createPlannerAgent, literalPlan, splitActions } from './examples/planner-agent.js';
export { createExecutorAgent } from './examples/executor-agent.js';

// Scaffolding, the process supervisor, doctor (used by framework-cli).
export { createProject, type CreateProjectOptions, type CreateProjectSummary } from './scaffold/create-project.js';
export { addAgent, type AddAgentOptions, type AddAgentSummary, type TaskAnswer } from './scaffold/add-agent.js';
export { createSwarm, type CreateSwarmOptions, type CreateSwarmSummary } from './scaffold/create-swarm.js';
export { ProjectFileSchema, ServiceSpecSchema, PROJECT_FILE, RUN_DIR, type ProjectFile, type ServiceSpec, type ServiceKind } from './supervisor/project-file.js';
export { Supervisor, type SupervisorOptions, type ServiceStatus, type SupervisorOutcome } from './supervisor/supervisor.js';
export type { SupervisorEvent, SupervisorEventType, ServiceState } from './supervisor/supervisor-event.js';
export { SupervisorError } from './supervisor/supervisor-error.js';
export { checkPorts, isPortFree, type PortClaim } from './supervisor/check-ports.js';
export { PortsInUseError, type PortConflict } from './supervisor/ports-in-use-error.js';
export { startOrder } from './supervisor/start-order.js';
export { readRunState, isAlive, type RunState, type RunService } from './supervisor/run-state.js';
export { stopStack, type StopStackResult } from './supervisor/stop-stack.js';
export { stackStatus, type StackStatus, type ServiceReport } from './supervisor/stack-status.js';
export { runDoctor, type DoctorReport, type RunDoctorOptions } from './doctor/run-doctor.js';
export type { DoctorCheck, CheckStatus } from './doctor/doctor-check.js';

// The Guardian service.
export { createGuardian, type GuardianOptions } from './guardian/create-guardian.js';
export { startGuardian, type RunningGuardian, type StartGuardianOptions } from './guardian/start-guardian.js';
export { guardianConfigFromEnv, DEFAULT_GUARDIAN_PORT, type GuardianConfig } from './guardian/guardian-config.js';
export { AuditTrail, type AuditTrailOptions } from './guardian/audit-trail.js';
export { DomainPolicyInputSchema, type DomainPolicyInput } from './guardian/domain-policy-input.js';
export { domainDecisionFrom, type DomainDecision } from './guardian/domain-decision.js';

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
export { FrontDoorClient, type FrontDoorClientOptions, type FrontDoorSession } from './http/front-door-client.js';
export { parseFrontDoorEvent, type ReceivedSseEvent } from './http/front-door-event.js';

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

// System memory: an Agent-Memory-Server-compatible service over Redis, and its client.
export { plannerMemory, TASK_RESULT_TOPIC, PENDING_CLARIFICATION_PREFIX, type PlannerMemoryOptions } from './memory/planner-memory-adapter.js';
export type { PlannerMemory, PastTaskResult } from './planning/planner-memory.js';
export { AgentMemory, type AgentMemoryOptions, type RecallOptions, type RememberOptions } from './memory/agent-memory.js';
export { MemoryServiceError } from './memory/memory-service-error.js';
export { SystemMemory, type SystemMemoryOptions } from './memory/system-memory.js';
export { createMemoryService, DEFAULT_MEMORY_MAX_BODY_BYTES, type MemoryServiceOptions } from './memory/create-memory-service.js';
export { startMemoryService, type RunningMemoryService, type StartMemoryServiceOptions } from './memory/start-memory-service.js';
export { loadMemoryConfig, agentMemoryConfig, MEMORY_DEFAULTS, type AgentMemoryConfig, type MemoryConfig } from './memory/memory-config.js';
export type { MemoryStore, RecordToStore, StoredOutcome, StoreSearch } from './memory/memory-store.js';
export { KvMemoryStore, type KvMemoryStoreOptions } from './memory/kv-memory-store.js';
export { VectorCache, type CacheSearch, type ScoredRecord } from './memory/vector-cache.js';
export {
  MemoryMessageSchema,
  MemoryRecordSchema,
  MemoryRecordResultSchema,
  MemoryRecordResultsSchema,
  LongTermRecordInputSchema,
  MemoryTypeSchema,
  type LongTermRecordInput,
  type MemoryMessage,
  type MemoryMessageInput,
  type MemoryRecord,
  type MemoryRecordResult,
  type MemoryRecordResults,
  type MemoryType,
} from './memory/memory-records.js';
export {
  WorkingMemorySchema,
  WorkingMemoryResponseSchema,
  WorkingMemoryUpdateSchema,
  type SessionRef,
  type WorkingMemory,
  type WorkingMemoryResponse,
  type WorkingMemoryUpdate,
} from './memory/working-memory.js';
export { MemoryFiltersSchema, recordFilter, type MemoryFilters, type TagFilter } from './memory/memory-filters.js';
export { SearchRequestSchema, type SearchRequest } from './memory/memory-search.js';
export { MemoryPromptRequestSchema, MemoryPromptResponseSchema, type MemoryPromptRequest, type MemoryPromptResponse, type PromptMessage } from './memory/memory-prompt.js';
export {
  AckResponseSchema,
  CreateMemoriesRequestSchema,
  CreateMemoriesResponseSchema,
  MemoryHealthSchema,
  type AckResponse,
  type CreateMemoriesRequest,
  type CreateMemoriesResponse,
  type MemoryHealth,
} from './memory/memory-responses.js';
