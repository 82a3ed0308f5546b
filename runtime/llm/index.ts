export type { ChatMessage, ThreadMemory } from './thread-memory.js';
export type { ChatFormat, ChatRequest, ChatResult, ChatUsage, LanguageModel } from './language-model.js';
export { invoke, invokeStream, type InvokeOptions } from './invoke.js';
export { createLanguageModel, parseLlmConfig } from './create-language-model.js';
export { OllamaLanguageModel, type OllamaProviderOptions } from './ollama-provider.js';
export { OpenAiLanguageModel, OPENAI_DEFAULT_BASE_URL, type OpenAiProviderOptions } from './openai-provider.js';
export { MemoryThreadMemory, DEFAULT_MAX_THREADS, type MemoryThreadMemoryOptions } from './memory-thread-memory.js';
export { KvThreadMemory, DEFAULT_THREAD_TTL_SECONDS, type KvThreadMemoryOptions } from './kv-thread-memory.js';
export {
  createThreadMemory,
  getDefaultThreadMemory,
  setDefaultThreadMemory,
  readThreadMemoryConfig,
  type ThreadMemoryConfig,
} from './create-thread-memory.js';
