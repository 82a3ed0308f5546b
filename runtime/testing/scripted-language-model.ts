import { raceAbort, throwIfAborted } from '../core/abort.js';
import type { ChatRequest, ChatResult, LanguageModel } from '../llm/language-model.js';

/** What a scripted model answers to one request: a fixed text, or a function of the request. */
export type ScriptedReply = string | ((request: ChatRequest) => string | Promise<string>);

export interface ScriptedLanguageModelOptions {
  /** Replies in order, one per call; when they run out the last one repeats. */
  replies: readonly ScriptedReply[];
  /** The model name reported in results; default the request's model. */
  model?: string;
}

/**
 * A `LanguageModel` for tests: it records every request it gets and answers
 * from a script, with no network and no model. Pass it to `invoke` as
 * `languageModel`.
 *
 * @example
 * const model = new ScriptedLanguageModel({ replies: ['{"actions":["Book the room"]}'] });
 * const text = await invoke({ provider: 'ollama', model: 'smollm2' }, 'Plan it', { languageModel: model });
 * model.requests[0]?.messages.at(-1)?.content; // 'Plan it'
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
    const text = await this.#reply(request);
    return { text, model: this.#model ?? request.model, finishReason: 'stop' };
  }

  async *chatStream(request: ChatRequest): AsyncIterable<string> {
    const text = await this.#reply(request);
    // Word by word, so consumers see a real stream of several chunks.
    for (const chunk of text.match(/\S+\s*|\s+/g) ?? []) {
      throwIfAborted(request.signal);
      yield chunk;
    }
  }

  async #reply(request: ChatRequest): Promise<string> {
    throwIfAborted(request.signal);
    const { signal: _signal, ...recorded } = request;
    const index = Math.min(this.requests.length, this.#replies.length - 1);
    this.requests.push(structuredClone(recorded));
    const reply = this.#replies[index] as ScriptedReply;
    return typeof reply === 'string' ? reply : raceAbort(Promise.resolve(reply(request)), request.signal);
  }
}
