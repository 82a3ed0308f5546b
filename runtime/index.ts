/**
 * The agent author's kit: the programming model (FrameworkCore, FrameworkAgent,
 * AgentResponse), running an agent (`runAgent`), model calls (`invoke`) and
 * thread history, sessions, configuration and every error class. Each
 * component has its own entry point: `framework_core/a2a`, `/policy`,
 * `/semantic`, `/memory`, `/model`, `/planning`, `/guardian`, `/http`, `/testing`.
 *
 * This file is the complete public surface of `framework_core`: names are exported
 * one by one, never with a wildcard, and a snapshot test keeps the list
 * deliberate (test/boundaries/exports.test.ts).
 */

// Programming model, configuration and errors.
export {
  FrameworkCore,
  ROUTE_TO_TASK,
  type ExecuteTaskOptions,
  type FrameworkCoreOptions,
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
export { FrameworkAgent, type FrameworkAgentOptions } from './core/framework-agent.js';
export { AgentResponse, PLAN_CONFIRMATION, type AgentResponseType } from './core/agent-response.js';
export { parseTaskInput, DEFAULT_CONTEXT_ID, type ParsedTaskInput, type TaskQuery } from './core/task-input.js';
export {
  loadAgentConfig,
  loadSessionConfig,
  loadA2AConfig,
  A2A_VALIDATION_MODES,
  CONFIG_DEFAULTS,
  type A2AConfig,
  type A2AValidationMode,
  type AgentConfig,
  type Env,
  type LogLevel,
  type SessionConfig,
} from './core/config.js';
export { LlmConfigSchema, type LlmConfig } from './core/llm-config.js';
export { InProcessContextStore, type ContextStore } from './core/context-store.js';
export type { JsonObject, JsonPrimitive, JsonValue } from './core/json.js';
export { createLogger, silentLogger, type Logger } from './core/logger.js';
export { loadAgentModule, type AgentModule } from './core/load-agent-module.js';
export { FrameworkError, type FrameworkErrorOptions } from './core/framework-error.js';
export { ERROR_CODES, errorCodeInfo, isErrorCode, type ErrorCode, type ErrorCodeInfo } from './core/error-codes.js';
export { toPublicError } from './core/public-error.js';
export { AbortedError } from './core/errors/aborted-error.js';
export { BadRequestError, type BadRequestCode } from './core/errors/bad-request-error.js';
export { ConfigError, type ConfigIssue } from './core/errors/config-error.js';
export { ModelNotFoundError } from './llm/errors/model-not-found-error.js';
export { ModelRuntimeError } from './llm/errors/model-runtime-error.js';
export { ToolLoopLimitError } from './llm/errors/tool-loop-limit-error.js';
export { SessionInvalidError } from './sessions/errors/session-invalid-error.js';
export { StoreUnavailableError } from './core/errors/store-unavailable-error.js';
export { UnknownStepError } from './core/errors/unknown-step-error.js';
export { UnknownTaskError } from './core/errors/unknown-task-error.js';
export { PermissionError } from './a2a/errors/permission-error.js';
export { SignatureError, type SignatureFailure } from './a2a/errors/signature-error.js';
export { AgentNotReadyError } from './core/errors/agent-not-ready-error.js';
export { AgentCardError } from './a2a/errors/agent-card-error.js';
export { PolicyUnavailableError } from './a2a/errors/policy-unavailable-error.js';
export { PolicyRefusedError } from './a2a/errors/policy-refused-error.js';
export { AgentHttpError } from './http/errors/agent-http-error.js';
export { StreamInterruptedError } from './http/errors/stream-interrupted-error.js';

export { InvalidModelOutputError } from './core/errors/invalid-model-output-error.js';

// Running an agent: front door, A2A endpoint and sessions assembled.
export { runAgent, type RunAgentOptions, type RunningAgent } from './agent/run-agent.js';

// Sessions.
export type { Session, SessionStore, StartedSession } from './sessions/session-store.js';
export { InProcessSessionStore, type InProcessSessionStoreOptions } from './sessions/in-process-session-store.js';
export { KvSessionStore, type KvSessionStoreOptions } from './sessions/kv-session-store.js';
export { createSessionStore, type SessionStoreConfig } from './sessions/create-session-store.js';

// Model calls, thread history and embeddings.
export { invoke, invokeStream, type InvokeOptions } from './llm/invoke.js';
export { createLanguageModel } from './llm/create-language-model.js';
export type { ChatFormat, ChatRequest, ChatResult, ChatStreamEvent, ChatTool, ChatUsage, LanguageModel } from './llm/language-model.js';
export type { ChatMessage, ChatToolCall, ThreadHistory } from './llm/thread-history.js';
export type { AgentTool, AgentToolContext, ToolCallEvent } from './llm/agent-tool.js';
export { ToolLoopPause, ToolLoopPausedError, type PausedToolLoop, type ToolLoopResume } from './llm/tool-pause.js';
export { InProcessThreadHistory } from './llm/in-process-thread-history.js';
export { KvThreadHistory } from './llm/kv-thread-history.js';
export { createThreadHistory, getDefaultThreadHistory, setDefaultThreadHistory } from './llm/create-thread-history.js';

export { OllamaEmbedder, type Embedder } from './llm/embedder.js';

// Agents that act: policy-gated tool calls with a person's approval.
export { registerToolAgentTask, type ToolAgentOptions } from './tools/tool-agent.js';
export { ToolGate, parseToolPolicies, toolGateFromEnv, type ToolGateOptions, type ToolDecision, type GatedToolCall } from './tools/tool-gate.js';
export {
  classifyToolApprovalReply,
  formatToolApproval,
  TOOL_APPROVAL,
  TOOL_APPROVE,
  TOOL_REJECT,
  PENDING_TOOL_APPROVAL_KEY,
  DEFAULT_APPROVAL_TTL_MS,
  PendingToolApprovalSchema,
  type PendingToolApproval,
  type ToolApprovalReply,
} from './tools/tool-approval.js';
