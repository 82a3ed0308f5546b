import { randomUUID } from 'node:crypto';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { z } from 'zod';
import { throwIfAborted } from '../core/abort.js';
import type { Env } from '../core/config.js';
import type { ChatRequest, ChatResult, ChatStreamEvent, ChatUsage, LanguageModel } from './language-model.js';
import type { ChatMessage, ChatToolCall } from './thread-history.js';
import { displayUrl, linkedController, mentionsMissingModel, modelError, modelNotFound, normalizeModelError, type RuntimeAddress } from './model-errors.js';

export interface OpenAiProviderOptions {
  /** Base address such as `http://127.0.0.1:11434/v1`; falls back to `OPENAI_BASE_URL`, then https://api.openai.com/v1. */
  baseUrl?: string;
  /** Bearer key; falls back to `OPENAI_API_KEY`. Without one no `Authorization` header is sent. */
  apiKey?: string;
  /** Where the fallbacks are read; default `process.env`. */
  env?: Env;
}

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

const SETTING = 'OPENAI_BASE_URL or llmConfig.base_url';
/** Most of an error body we put into a message. */
const MAX_ERROR_TEXT = 2000;
/** Most an SSE event may buffer before the stream is rejected. */
const MAX_EVENT_CHARS = 4 * 1024 * 1024;

const UsageSchema = z.object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() }).nullish();

/** `arguments` is JSON text on this wire; the tool loop parses it. */
const ToolCallSchema = z.object({
  id: z.string().nullish(),
  function: z.object({ name: z.string(), arguments: z.string().nullish() }),
});

const CompletionSchema = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullish(), tool_calls: z.array(ToolCallSchema).nullish() }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: UsageSchema,
});

/** A streamed piece of a tool call: the first names it, later ones append to its arguments text. */
const ToolCallDeltaSchema = z.object({
  /** Some servers leave it out; the call's position in the delta is used then. */
  index: z.number().int().nonnegative().optional(),
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

const CompletionChunkSchema = z.object({
  choices: z
    .array(
      z.object({
        delta: z.object({ content: z.string().nullish(), tool_calls: z.array(ToolCallDeltaSchema).nullish() }).nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .default([]),
  usage: UsageSchema,
});

const ErrorBodySchema = z.object({
  error: z.union([
    z.string(),
    z.object({
      message: z.string().optional(),
      code: z.union([z.string(), z.number()]).nullish(),
    }),
  ]),
});

type ErrorDetail = { message: string; code?: string | number | null | undefined };

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function toOpenAiMessage(message: ChatMessage): Record<string, unknown> {
  if (message.role === 'tool') return { role: 'tool', tool_call_id: message.tool_call_id ?? '', content: message.content };
  if (message.role === 'assistant' && message.tool_calls?.length) {
    return {
      role: 'assistant',
      content: message.content || null,
      tool_calls: message.tool_calls.map((call) => ({
        id: call.id,
        type: 'function',
        function: {
          name: call.name,
          arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
        },
      })),
    };
  }
  return { role: message.role, content: message.content };
}

function toolCall(id: string | null | undefined, name: string, args: string | null | undefined): ChatToolCall {
  return { id: id || `call_${randomUUID()}`, name, arguments: args ?? '' };
}

function errorDetail(value: unknown): ErrorDetail | undefined {
  const parsed = ErrorBodySchema.safeParse(value);
  if (!parsed.success) return undefined;
  const { error } = parsed.data;
  return typeof error === 'string' ? { message: error } : { message: error.message ?? '', code: error.code };
}

/**
 * A model behind any OpenAI-compatible `/chat/completions` endpoint (OpenAI,
 * Ollama's `/v1`, vLLM, llama.cpp, LM Studio, ...), over plain `fetch`.
 *
 * @example
 * const model = new OpenAiLanguageModel({ baseUrl: 'http://127.0.0.1:11434/v1' });
 * for await (const chunk of model.chatStream({ model: 'smollm2', messages })) process.stdout.write(chunk);
 */
export class OpenAiLanguageModel implements LanguageModel {
  readonly provider = 'openai';
  readonly baseUrl: string;
  readonly #endpoint: string;
  readonly #apiKey: string | undefined;
  readonly #address: RuntimeAddress;

  constructor(options: OpenAiProviderOptions = {}) {
    const env = options.env ?? process.env;
    const base = (options.baseUrl || env.OPENAI_BASE_URL || OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.#endpoint = `${base}/chat/completions`;
    this.#apiKey = options.apiKey || env.OPENAI_API_KEY || undefined;
    this.baseUrl = displayUrl(base);
    this.#address = { baseUrl: this.baseUrl, setting: SETTING };
  }

  async #post(request: ChatRequest, stream: boolean, signal: AbortSignal): Promise<Response> {
    const body: Record<string, unknown> = {
      model: request.model,
      messages: request.messages.map(toOpenAiMessage),
      stream,
    };
    if (request.tools?.length) {
      body.tools = request.tools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
      }));
    }
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.format === 'json') body.response_format = { type: 'json_object' };
    else if (request.format !== undefined) {
      body.response_format = {
        type: 'json_schema',
        json_schema: { name: 'response', schema: request.format, strict: true },
      };
    }
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      Accept: stream ? 'text/event-stream' : 'application/json',
    };
    if (this.#apiKey !== undefined) headers.Authorization = `Bearer ${this.#apiKey}`;

    const response = await fetch(this.#endpoint, { method: 'POST', headers, body: JSON.stringify(body), signal });
    if (!response.ok) throw await this.#httpError(response, request.model);
    return response;
  }

  async #httpError(response: Response, model: string): Promise<Error> {
    const text = (await response.text().catch(() => '')).trim();
    const detail = errorDetail(parseJson(text)) ?? { message: text.slice(0, MAX_ERROR_TEXT) };
    const message = detail.message || `${response.status} ${response.statusText}`;
    if (response.status === 404 && (detail.code === 'model_not_found' || mentionsMissingModel(message))) {
      return modelNotFound(this.#address, model);
    }
    if (response.status === 404) {
      return modelError(
        this.#address,
        `HTTP 404 at ${displayUrl(this.#endpoint)}: ${message} (OpenAI-compatible base addresses usually end in /v1; check ${SETTING})`,
      );
    }
    return modelError(this.#address, `HTTP ${response.status}: ${message}`);
  }

  async chat(request: ChatRequest): Promise<ChatResult> {
    throwIfAborted(request.signal);
    const { controller, dispose } = linkedController(request.signal);
    try {
      const response = await this.#post(request, false, controller.signal);
      const text = await response.text();
      const parsed = CompletionSchema.safeParse(parseJson(text));
      if (!parsed.success) {
        const detail = errorDetail(parseJson(text));
        throw modelError(this.#address, detail ? detail.message : `unexpected reply shape: ${z.prettifyError(parsed.error)}`);
      }
      const reply = parsed.data;
      const choice = reply.choices[0]!;
      const toolCalls = (choice.message.tool_calls ?? []).map((call) => toolCall(call.id, call.function.name, call.function.arguments));
      return {
        text: choice.message.content ?? '',
        ...(toolCalls.length ? { toolCalls } : {}),
        model: reply.model ?? request.model,
        ...(choice.finish_reason ? { finishReason: choice.finish_reason } : {}),
        ...(reply.usage ? { usage: { promptTokens: reply.usage.prompt_tokens, completionTokens: reply.usage.completion_tokens } } : {}),
      };
    } catch (error) {
      throw normalizeModelError(error, this.#address, request.signal);
    } finally {
      dispose();
    }
  }

  async *chatStream(request: ChatRequest): AsyncIterable<string> {
    for await (const event of this.chatEvents(request)) if (event.type === 'text') yield event.text;
  }

  async *chatEvents(request: ChatRequest): AsyncIterable<ChatStreamEvent> {
    throwIfAborted(request.signal);
    const { controller, dispose } = linkedController(request.signal);
    let completed = false;
    let reader: ReadableStreamDefaultReader<{ event?: string | undefined; data: string }> | undefined;
    try {
      const response = await this.#post(request, true, controller.signal);
      if (!response.body) throw modelError(this.#address, 'the streamed reply has no body');
      reader = response.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream({ maxBufferSize: MAX_EVENT_CHARS, onError: () => {} }))
        .getReader();

      let finished = false;
      let finishReason: string | undefined;
      let usage: ChatUsage | undefined;
      /** Tool calls by their stream index, arguments text accumulated. */
      const calls = new Map<number, { id?: string | null; name: string; args: string }>();
      for (;;) {
        const { done, value: event } = await reader.read();
        if (done) break;
        const data = event.data.trim();
        if (data === '[DONE]') {
          finished = true;
          break;
        }
        const json = parseJson(data);
        if (event.event === 'error' || errorDetail(json)) {
          throw modelError(this.#address, errorDetail(json)?.message || data.slice(0, MAX_ERROR_TEXT));
        }
        const chunk = CompletionChunkSchema.safeParse(json);
        if (!chunk.success) {
          throw modelError(this.#address, `unexpected stream chunk: ${data.slice(0, 200)}`);
        }
        if (chunk.data.usage) usage = { promptTokens: chunk.data.usage.prompt_tokens, completionTokens: chunk.data.usage.completion_tokens };
        for (const choice of chunk.data.choices) {
          const text = choice.delta?.content;
          if (text) yield { type: 'text', text };
          for (const [position, delta] of (choice.delta?.tool_calls ?? []).entries()) {
            const index = delta.index ?? position;
            const call = calls.get(index) ?? { name: '', args: '' };
            if (delta.id) call.id = delta.id;
            if (delta.function?.name && !call.name) call.name = delta.function.name;
            if (delta.function?.arguments) call.args += delta.function.arguments;
            calls.set(index, call);
          }
          if (choice.finish_reason) {
            finished = true;
            finishReason = choice.finish_reason;
          }
        }
      }
      if (!finished) throw modelError(this.#address, 'the stream ended before the reply was complete');
      completed = true;
      const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => toolCall(call.id, call.name, call.args));
      if (toolCalls.length) yield { type: 'tool-calls', toolCalls };
      yield { type: 'finish', ...(finishReason ? { finishReason } : {}), ...(usage ? { usage } : {}) };
    } catch (error) {
      throw normalizeModelError(error, this.#address, request.signal);
    } finally {
      // Closes the HTTP request when the consumer stopped early or the stream failed.
      if (!completed) controller.abort();
      reader?.cancel().catch(() => {});
      dispose();
    }
  }
}
