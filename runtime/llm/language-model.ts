import type { ChatMessage, ChatToolCall } from './thread-history.js';

/**
 * Structured output: `'json'` asks for any JSON object; an object is a JSON
 * schema the reply must follow.
 */
export type ChatFormat = 'json' | Readonly<Record<string, unknown>>;

/** A tool offered to the model: what it is for and the JSON schema of its arguments. */
export interface ChatTool {
  name: string;
  description: string;
  inputSchema: Readonly<Record<string, unknown>>;
}

/** One chat completion request, the same for every provider. */
export interface ChatRequest {
  model: string;
  /** The whole conversation, oldest first, including any system message. */
  messages: readonly ChatMessage[];
  temperature?: number;
  format?: ChatFormat;
  /** Tools the model may ask to call; the reply then carries `toolCalls` instead of (or besides) text. */
  tools?: readonly ChatTool[];
  /** Firing it stops the HTTP request; the call then rejects with `AbortedError`. */
  signal?: AbortSignal;
}

export interface ChatUsage {
  promptTokens?: number;
  completionTokens?: number;
}

/** A complete (non-streamed) reply. */
export interface ChatResult {
  text: string;
  /** The model that answered, as the runtime reports it. */
  model: string;
  /** Why generation stopped (`stop`, `length`, ...), when the runtime says. */
  finishReason?: string;
  usage?: ChatUsage;
  /** The tool calls the model asked for, when the request offered `tools`; absent or empty otherwise. */
  toolCalls?: ChatToolCall[];
}

/**
 * What `chatEvents` yields: text chunks as they arrive, then the tool calls
 * of the reply (once, when there are any), then `finish`.
 */
export type ChatStreamEvent =
  { type: 'text'; text: string } | { type: 'tool-calls'; toolCalls: ChatToolCall[] } | { type: 'finish'; finishReason?: string; usage?: ChatUsage };

/**
 * The provider contract: one model runtime reached over HTTP.
 *
 * Failures reject with `ModelNotFoundError` (the runtime lacks the model),
 * `ModelRuntimeError` (`model_runtime_unavailable` when it cannot be reached,
 * `model_error` when it answers with an error) or `AbortedError`.
 */
export interface LanguageModel {
  /** `ollama`, `openai`, or a custom name. */
  readonly provider: string;
  /** The runtime's address, without credentials. */
  readonly baseUrl: string;
  chat(request: ChatRequest): Promise<ChatResult>;
  /**
   * The reply as text chunks, in order. Ending the iteration early (a `break`
   * in `for await`) closes the HTTP request.
   */
  chatStream(request: ChatRequest): AsyncIterable<string>;
  /**
   * The reply as events: text chunks and the tool calls the model asked for.
   * Optional so existing providers keep working; without it a tool-using
   * `invokeStream` falls back to `chat`.
   */
  chatEvents?(request: ChatRequest): AsyncIterable<ChatStreamEvent>;
}
