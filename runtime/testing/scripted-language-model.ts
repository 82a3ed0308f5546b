import { raceAbort, throwIfAborted } from '../core/abort.js';
import type { ChatRequest, ChatResult, ChatStreamEvent, LanguageModel } from '../llm/language-model.js';
import type { ChatToolCall } from '../llm/thread-history.js';

/** A scripted reply that asks for tool calls, with optional text beside them. */
export interface ScriptedToolCalls {
  text?: string;
  toolCalls: ChatToolCall[];
}

/** What a scripted model answers to one request: a fixed text or tool calls, or a function of the request. */
export type ScriptedReply = string | ScriptedToolCalls | ((request: ChatRequest) => string | ScriptedToolCalls | Promise<string | ScriptedToolCalls>);

export interface ScriptedLanguageModelOptions {
  /** Replies in order, one per call; when they run out the last one repeats. */
  replies: readonly ScriptedReply[];
  /** The model name reported in results; default the request's model. */
  model?: string;
}

/** Word by word, so consumers see a real stream of several chunks. */
function words(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/**
 * A `LanguageModel` for tests: it records every request it gets and answers
 * from a script, with no network and no model. Pass it to `invoke` as
 * `languageModel`. A reply may ask for tool calls, to test `invoke`'s
 * `tools` without a model.
 *
 * @example
 * const model = new ScriptedLanguageModel({ replies: ['{"actions":["Book the room"]}'] });
 * const text = await invoke({ provider: 'ollama', model: 'smollm2' }, 'Plan it', { languageModel: model });
 * model.requests[0]?.messages.at(-1)?.content; // 'Plan it'
 *
 * const withTools = new ScriptedLanguageModel({
 *   replies: [{ toolCalls: [{ id: 'c1', name: 'get_weather', arguments: { city: 'Paris' } }] }, 'Sunny.'],
 * });
 * await invoke(llmConfig, 'Weather?', { languageModel: withTools, tools: [getWeather] }); // 'Sunny.'
 */
export class ScriptedLanguageModel implements LanguageModel {
  readonly provider = 'scripted';
  readonly baseUrl = 'scripted:';
  /** Every request received, in order (without its signal). */
  readonly requests: Omit<ChatRequest, 'signal'>[] = [];
  readonly #replies: readonly ScriptedReply[];
  readonly #model: string | undefined;

  constructor(options: ScriptedLanguageModelOptions) {
    if (options.replies.length === 0) throw new TypeError('ScriptedLanguageModel needs at least one reply');
    this.#replies = options.replies;
    this.#model = options.model;
  }

  async chat(request: ChatRequest): Promise<ChatResult> {
    const { text, toolCalls } = await this.#reply(request);
    return {
      text,
      model: this.#model ?? request.model,
      finishReason: toolCalls.length ? 'tool_calls' : 'stop',
      ...(toolCalls.length ? { toolCalls } : {}),
    };
  }

  async *chatStream(request: ChatRequest): AsyncIterable<string> {
    const { text } = await this.#reply(request);
    for (const chunk of words(text)) {
      throwIfAborted(request.signal);
      yield chunk;
    }
  }

  async *chatEvents(request: ChatRequest): AsyncIterable<ChatStreamEvent> {
    const { text, toolCalls } = await this.#reply(request);
    for (const chunk of words(text)) {
      throwIfAborted(request.signal);
      yield { type: 'text', text: chunk };
    }
    if (toolCalls.length) yield { type: 'tool-calls', toolCalls };
    yield { type: 'finish', finishReason: toolCalls.length ? 'tool_calls' : 'stop' };
  }

  async #reply(request: ChatRequest): Promise<{ text: string; toolCalls: ChatToolCall[] }> {
    throwIfAborted(request.signal);
    const { signal: _signal, ...recorded } = request;
    const index = Math.min(this.requests.length, this.#replies.length - 1);
    this.requests.push(structuredClone(recorded));
    const script = this.#replies[index] as ScriptedReply;
    const reply = typeof script === 'function' ? await raceAbort(Promise.resolve(script(request)), request.signal) : script;
    if (typeof reply === 'string') return { text: reply, toolCalls: [] };
    return { text: reply.text ?? '', toolCalls: structuredClone(reply.toolCalls) };
  }
}
