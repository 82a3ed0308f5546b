import { raceAbort, throwIfAborted } from '../core/abort.js';
import type { LlmConfig } from '../core/llm-config.js';
import { createLanguageModel, parseLlmConfig } from './create-language-model.js';
import { getDefaultThreadHistory } from './create-thread-history.js';
import type { ChatFormat, ChatRequest, LanguageModel } from './language-model.js';
import type { ChatMessage, ThreadHistory } from './thread-history.js';

export { createLanguageModel } from './create-language-model.js';

export interface InvokeOptions {
  /**
   * Conversation to continue: its history is sent before the prompt and the
   * exchange is appended after a successful reply. Without it each call is
   * independent and nothing is stored.
   */
  threadId?: string;
  /** Firing it stops the model call; the call rejects with `AbortedError`. */
  signal?: AbortSignal;
  /** `'json'` or a JSON schema for structured output. */
  format?: ChatFormat;
  /** System prompt sent first on every call; never stored in the thread. */
  system?: string;
  /** Where threads live; default `getDefaultThreadHistory()`. */
  history?: ThreadHistory;
  /** A provider to call instead of the one `llmConfig` names (for example a scripted model in tests). */
  languageModel?: LanguageModel;
}

interface Prepared {
  model: LanguageModel;
  request: ChatRequest;
  /** Appends the exchange to the thread, when there is one. */
  remember(reply: string): Promise<void>;
}

async function prepare(llmConfig: LlmConfig, prompt: string, options: InvokeOptions): Promise<Prepared> {
  const config = parseLlmConfig(llmConfig);
  if (typeof prompt !== 'string') throw new TypeError(`invoke(prompt) takes a string, got ${typeof prompt}`);
  const { threadId, signal } = options;
  if (threadId !== undefined && (typeof threadId !== 'string' || threadId.length === 0)) {
    throw new TypeError('invoke({ threadId }) must be a non-empty string when given');
  }
  throwIfAborted(signal);

  const model = options.languageModel ?? createLanguageModel(config);
  const thread = threadId === undefined ? undefined : (options.history ?? getDefaultThreadHistory());
  const history = thread && threadId !== undefined ? await raceAbort(thread.load(threadId), signal) : [];
  const user: ChatMessage = { role: 'user', content: prompt };
  const messages: ChatMessage[] = [...(options.system ? [{ role: 'system' as const, content: options.system }] : []), ...history, user];
  const request: ChatRequest = {
    model: config.model,
    messages,
    ...(config.temperature === undefined ? {} : { temperature: config.temperature }),
    ...(options.format === undefined ? {} : { format: options.format }),
    ...(signal === undefined ? {} : { signal }),
  };
  return {
    model,
    request,
    async remember(reply) {
      if (thread && threadId !== undefined) await thread.append(threadId, [user, { role: 'assistant', content: reply }]);
    },
  };
}

/**
 * Sends `prompt` to the model `llmConfig` names and resolves to its reply.
 *
 * Rejects with `ConfigError` (bad `llmConfig`), `ModelNotFoundError`,
 * `ModelRuntimeError`, `StoreUnavailableError` (thread history down) or
 * `AbortedError`.
 *
 * @example
 * const llmConfig = { provider: 'ollama', model: 'smollm2', temperature: 0 } as const;
 * await invoke(llmConfig, 'My name is Ada.', { threadId: 'c1' });
 * const answer = await invoke(llmConfig, 'What is my name?', { threadId: 'c1' }); // sees the first exchange
 * const plan = JSON.parse(await invoke(llmConfig, 'List three steps as JSON', { format: 'json' }));
 */
export async function invoke(llmConfig: LlmConfig, prompt: string, options: InvokeOptions = {}): Promise<string> {
  const { model, request, remember } = await prepare(llmConfig, prompt, options);
  const { text } = await model.chat(request);
  await remember(text);
  return text;
}

/**
 * Like `invoke`, but yields the reply as text chunks while the model writes
 * it. The thread is updated only when the stream completes: not when it is
 * aborted, fails, or the consumer stops early.
 *
 * @example
 * for await (const chunk of invokeStream(llmConfig, 'Tell me a story', { threadId: 'c1', signal })) {
 *   process.stdout.write(chunk);
 * }
 */
export async function* invokeStream(llmConfig: LlmConfig, prompt: string, options: InvokeOptions = {}): AsyncIterable<string> {
  const { model, request, remember } = await prepare(llmConfig, prompt, options);
  let reply = '';
  for await (const chunk of model.chatStream(request)) {
    reply += chunk;
    yield chunk;
  }
  await remember(reply);
}
