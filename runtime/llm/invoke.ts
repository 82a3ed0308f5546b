import { raceAbort, throwIfAborted } from '../core/abort.js';
import type { LlmConfig } from '../core/llm-config.js';
import { createLanguageModel, parseLlmConfig } from './create-language-model.js';
import { getDefaultThreadHistory } from './create-thread-history.js';
import type { AgentTool, ToolCallEvent } from './agent-tool.js';
import type { ChatFormat, ChatRequest, LanguageModel } from './language-model.js';
import type { ChatMessage, ThreadHistory } from './thread-history.js';
import { chatStep, DEFAULT_MAX_TOOL_STEPS, streamStep, toolLoop, type ModelStep, type ToolLoopResult } from './tool-loop.js';
import { ToolSet } from './tool-set.js';

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
  /**
   * Tools the model may call. Each call's arguments are checked against the
   * tool's `inputSchema`, the tool runs, and its result (or `{"error": ...}`
   * for an unknown tool, invalid arguments or a throw) goes back to the model,
   * until it answers with text.
   */
  tools?: readonly AgentTool[];
  /** Rounds of tool calls allowed before the call rejects with `ToolLoopLimitError`; default 8. */
  maxToolSteps?: number;
  /** Called after each tool call with its arguments and result or error, in order; awaited. */
  onToolCall?: (event: ToolCallEvent) => void | Promise<void>;
}

interface Prepared {
  /** Runs the model (and tools) with `step`, yielding text chunks. */
  run(step: (model: LanguageModel, withTools: boolean) => ModelStep): AsyncGenerator<string, ToolLoopResult>;
  /** Appends the exchange to the thread, when there is one. */
  remember(result: ToolLoopResult): Promise<void>;
}

/** Drops tool results at the start of a loaded thread: trimming to `maxMessages` can cut off the call they answer. */
function withoutOrphanToolResults(history: ChatMessage[]): ChatMessage[] {
  const first = history.findIndex((m) => m.role !== 'tool');
  return first === -1 ? [] : history.slice(first);
}

async function prepare(llmConfig: LlmConfig, prompt: string, options: InvokeOptions): Promise<Prepared> {
  const config = parseLlmConfig(llmConfig);
  if (typeof prompt !== 'string') throw new TypeError(`invoke(prompt) takes a string, got ${typeof prompt}`);
  const { threadId, signal } = options;
  if (threadId !== undefined && (typeof threadId !== 'string' || threadId.length === 0)) {
    throw new TypeError('invoke({ threadId }) must be a non-empty string when given');
  }
  const maxToolSteps = options.maxToolSteps ?? DEFAULT_MAX_TOOL_STEPS;
  if (!Number.isInteger(maxToolSteps) || maxToolSteps < 1) {
    throw new RangeError(`invoke({ maxToolSteps }) must be a positive integer, got ${maxToolSteps}`);
  }
  const tools = options.tools?.length ? new ToolSet(options.tools) : undefined;
  throwIfAborted(signal);

  const model = options.languageModel ?? createLanguageModel(config);
  const thread = threadId === undefined ? undefined : (options.history ?? getDefaultThreadHistory());
  const history = thread && threadId !== undefined ? withoutOrphanToolResults(await raceAbort(thread.load(threadId), signal)) : [];
  const user: ChatMessage = { role: 'user', content: prompt };
  const messages: ChatMessage[] = [...(options.system ? [{ role: 'system' as const, content: options.system }] : []), ...history, user];
  const request: ChatRequest = {
    model: config.model,
    messages,
    ...(config.temperature === undefined ? {} : { temperature: config.temperature }),
    ...(options.format === undefined ? {} : { format: options.format }),
    ...(signal === undefined ? {} : { signal }),
  };
  const loopOptions = {
    maxToolSteps,
    ...(tools ? { tools } : {}),
    ...(options.onToolCall ? { onToolCall: options.onToolCall } : {}),
  };
  return {
    run: (step) => toolLoop(step(model, tools !== undefined), request, loopOptions),
    async remember({ added }) {
      if (thread && threadId !== undefined) await thread.append(threadId, [user, ...added]);
    },
  };
}

/**
 * Sends `prompt` to the model `llmConfig` names and resolves to its reply.
 *
 * With `tools`, the tools the model asks for run between its replies (see
 * `InvokeOptions.tools`) and the result is its first reply without tool
 * calls; a thread keeps the tool calls and results too.
 *
 * Rejects with `ConfigError` (bad `llmConfig`), `ModelNotFoundError`,
 * `ModelRuntimeError`, `StoreUnavailableError` (thread history down),
 * `ToolLoopLimitError` (still asking for tools after `maxToolSteps` rounds),
 * `AbortedError`, `TypeError`/`RangeError` for bad options (such as two tools
 * with one name), or whatever `onToolCall` throws.
 *
 * @example
 * const llmConfig = { provider: 'ollama', model: 'smollm2', temperature: 0 } as const;
 * await invoke(llmConfig, 'My name is Ada.', { threadId: 'c1' });
 * const answer = await invoke(llmConfig, 'What is my name?', { threadId: 'c1' }); // sees the first exchange
 * const plan = JSON.parse(await invoke(llmConfig, 'List three steps as JSON', { format: 'json' }));
 * const weather = await invoke(llmConfig, 'Weather in Paris?', { tools: [getWeather], onToolCall: (e) => console.log(e.name, e.result ?? e.error) });
 */
export async function invoke(llmConfig: LlmConfig, prompt: string, options: InvokeOptions = {}): Promise<string> {
  const { run, remember } = await prepare(llmConfig, prompt, options);
  const loop = run(chatStep);
  let next = await loop.next();
  while (!next.done) next = await loop.next();
  await remember(next.value);
  return next.value.reply;
}

/**
 * Like `invoke`, but yields the reply as text chunks while the model writes
 * it. With `tools`, tool rounds run between the model's replies; text the
 * model writes beside its tool calls is yielded too (most models write none).
 * The thread is updated only when the stream completes: not when it is
 * aborted, fails, or the consumer stops early.
 *
 * @example
 * for await (const chunk of invokeStream(llmConfig, 'Tell me a story', { threadId: 'c1', signal })) {
 *   process.stdout.write(chunk);
 * }
 */
export async function* invokeStream(llmConfig: LlmConfig, prompt: string, options: InvokeOptions = {}): AsyncIterable<string> {
  const { run, remember } = await prepare(llmConfig, prompt, options);
  const result = yield* run(streamStep);
  await remember(result);
}
