/**
 * System memory for swarms: a service speaking the Agent Memory Server's
 * REST API over Redis, its client `AgentMemory`, and the planner adapter.
 *
 * This file is the complete public surface of `framework_core/memory`: names are exported
 * one by one, never with a wildcard, and a snapshot test keeps the list
 * deliberate (test/boundaries/exports.test.ts).
 */
export { plannerMemory, TASK_RESULT_TOPIC, PENDING_CLARIFICATION_PREFIX, type PlannerMemoryOptions } from './planner-memory-adapter.js';
export { AgentMemory, type AgentMemoryOptions, type RecallOptions, type RememberOptions } from './agent-memory.js';
export { MemoryServiceError } from './memory-service-error.js';
export { memoryTools, MEMORY_TOOL_NAMES } from './memory-tools.js';
export { MEMORY_MCP_PATH } from './memory-mcp-route.js';
export { MEMORY_MCP_TOOLS } from './memory-mcp.js';
export { EXTRACTION_SCHEMA, type MemoryLanguageModel } from './memory-model.js';
export { SystemMemory, type SystemMemoryOptions } from './system-memory.js';
export { createMemoryService, DEFAULT_MEMORY_MAX_BODY_BYTES, type MemoryServiceOptions } from './create-memory-service.js';
export { startMemoryService, type RunningMemoryService, type StartMemoryServiceOptions } from './start-memory-service.js';
export { loadMemoryConfig, agentMemoryConfig, MEMORY_DEFAULTS, type AgentMemoryConfig, type MemoryConfig } from './memory-config.js';
export type { MemoryStore, RecordToStore, StoredOutcome, StoreSearch } from './memory-store.js';
export { KvMemoryStore, type KvMemoryStoreOptions } from './kv-memory-store.js';
export { VectorCache, type CacheSearch, type ScoredRecord } from './vector-cache.js';
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
} from './memory-records.js';
export {
  WorkingMemorySchema,
  WorkingMemoryResponseSchema,
  WorkingMemoryUpdateSchema,
  type SessionRef,
  type WorkingMemory,
  type WorkingMemoryResponse,
  type WorkingMemoryUpdate,
} from './working-memory.js';
export { MemoryFiltersSchema, recordFilter, type MemoryFilters, type TagFilter } from './memory-filters.js';
export { SearchRequestSchema, type SearchRequest } from './memory-search.js';
export {
  MemoryPromptRequestSchema,
  MemoryPromptResponseSchema,
  type MemoryPromptRequest,
  type MemoryPromptResponse,
  type PromptMessage,
} from './memory-prompt.js';
export {
  AckResponseSchema,
  CreateMemoriesRequestSchema,
  CreateMemoriesResponseSchema,
  MemoryHealthSchema,
  type AckResponse,
  type CreateMemoriesRequest,
  type CreateMemoriesResponse,
  type MemoryHealth,
} from './memory-responses.js';
