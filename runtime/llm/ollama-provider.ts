import { randomUUID } from 'node:crypto';
import type { Ollama, ChatRequest as OllamaChatRequest, Message as OllamaMessage } from 'ollama';
import { z } from 'zod';
import { throwIfAborted } from '../core/abort.js';
import { CONFIG_DEFAULTS, type Env } from '../core/config.js';
import type { ChatRequest, ChatResult, ChatStreamEvent, LanguageModel } from './language-model.js';
import type { ChatMessage, ChatToolCall } from './thread-history.js';
import { ollamaModule } from './ollama-client.js';
import { displayUrl, linkedController, mentionsMissingModel, modelError, modelNotFound, normalizeModelError, type RuntimeAddress } from './model-errors.js';

export interface OllamaProviderOptions {
  /** The runtime's address; falls back to `OLLAMA_HOST`, then http://127.0.0.1:11434. */
  baseUrl?: string;
  /** Where `OLLAMA_HOST` is read; default `process.env`. */
  env?: Env;
}

/** What we use of an Ollama `/api/chat` reply or stream line. */
const OllamaChatChunkSchema = z.object({
  model: z.string().optional(),
  message: z
    .object({
      content: z.string().default(''),
      tool_calls: z.array(z.object({ id: z.string().optional(), function: z.object({ name: z.string(), arguments: z.unknown() }) })).optional(),
    })
    .optional(),
  done: z.boolean().optional(),
  done_reason: z.string().optional(),
  prompt_eval_count: z.number().optional(),
  eval_count: z.number().optional(),
});

/** Ollama's client throws this (not exported) for non-2xx answers. */
const ResponseErrorSchema = z.object({ status_code: z.number(), error: z.string() });

const SETTING = 'OLLAMA_HOST or llmConfig.base_url';

type OllamaTool = NonNullable<OllamaChatRequest['tools']>[number];
type OllamaChunk = z.infer<typeof OllamaChatChunkSchema>;

/** Ollama sends arguments as an object; a stored call may hold text the model sent elsewhere. */
function argumentsObject(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return {};
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function toOllamaMessage(message: ChatMessage): OllamaMessage {
  const out: OllamaMessage = { role: message.role, content: message.content };
  if (message.tool_calls?.length) {
    out.tool_calls = message.tool_calls.map((call) => ({ function: { name: call.name, arguments: argumentsObject(call.arguments) } }));
  }
  if (message.role === 'tool' && message.name !== undefined) out.tool_name = message.name;
  return out;
}

/** The tool calls of one reply or stream line; older Ollama versions send no ids, so missing ones are generated. */
function toolCallsOf(chunk: OllamaChunk): ChatToolCall[] {
  return (chunk.message?.tool_calls ?? []).map((call) => ({
    id: call.id || `call_${randomUUID()}`,
    name: call.function.name,
    arguments: call.function.arguments ?? {},
  }));
}

function withScheme(host: string): string {
  return host.includes('://') ? host : `http://${host}`;
}

/**
 * Turns a non-JSON error body into `{"error": text}`, so the `ollama` client
 * reads the runtime's message without printing to the console.
 */
async function jsonErrorBody(response: Response): Promise<Response> {
  if (response.ok || response.headers.get('content-type')?.includes('application/json')) return response;
  const text = (await response.text()).trim().slice(0, 2000);
  return new Response(JSON.stringify({ error: text || `HTTP ${response.status} ${response.statusText}` }), {
    status: response.status,
    statusText: response.statusText,
    headers: { 'content-type': 'application/json' },
  });
}

/**
 * A model served by Ollama (or anything speaking its `/api/chat`), through
 * the official `ollama` client.
 *
 * @example
 * const model = new OllamaLanguageModel({ baseUrl: 'http://127.0.0.1:11434' });
 * const { text } = await model.chat({ model: 'smollm2', messages: [{ role: 'user', content: 'Hi' }] });
 */
export class OllamaLanguageModel implements LanguageModel {
  readonly provider = 'ollama';
  readonly baseUrl: string;
  readonly #host: string;
  readonly #address: RuntimeAddress;

  constructor(options: OllamaProviderOptions = {}) {
    const env = options.env ?? process.env;
    const configured = options.baseUrl || env.OLLAMA_HOST || CONFIG_DEFAULTS.ollamaHost;
    this.#host = withScheme(configured);
    this.baseUrl = displayUrl(this.#host);
    this.#address = { baseUrl: this.baseUrl, setting: SETTING };
  }

  /**
   * A client whose every HTTP request stops when `signal` fires. The `ollama`
   * client aborts only streams, and only after their headers arrived; a
   * per-call `fetch` covers the whole request, streamed or not. (The
   * client's module is loaded by the first call: see `ollamaModule`.)
   */
  async #client(signal: AbortSignal): Promise<Ollama> {
    const { Ollama } = await ollamaModule();
    const fetchWithSignal: typeof fetch = async (input, init) => {
      const merged = init?.signal ? AbortSignal.any([init.signal, signal]) : signal;
      return jsonErrorBody(await fetch(input, { ...init, signal: merged }));
    };
    return new Ollama({ host: this.#host, fetch: fetchWithSignal });
  }

  #body(request: ChatRequest): Omit<OllamaChatRequest, 'stream'> {
    return {
      model: request.model,
      messages: request.messages.map(toOllamaMessage),
      ...(request.tools?.length
        ? {
            tools: request.tools.map((tool): OllamaTool => ({
              type: 'function',
              function: { name: tool.name, description: tool.description, parameters: tool.inputSchema as OllamaTool['function']['parameters'] },
            })),
          }
        : {}),
      ...(request.format === undefined ? {} : { format: request.format }),
      ...(request.temperature === undefined ? {} : { options: { temperature: request.temperature } }),
    };
  }

  #mapError(error: unknown, request: ChatRequest): Error {
    if (!request.signal?.aborted) {
      const response = ResponseErrorSchema.safeParse(error);
      if (response.success) {
        const { status_code: status, error: detail } = response.data;
        if (status === 404 && mentionsMissingModel(detail)) return modelNotFound(this.#address, request.model, error);
        if (status === 404) {
          return modelError(this.#address, `HTTP 404 ${detail} (is ${SETTING} the runtime's root address, such as http://127.0.0.1:11434?)`, error);
        }
        return modelError(this.#address, `HTTP ${status} ${detail}`, error);
      }
    }
    return normalizeModelError(error, this.#address, request.signal);
  }

  #parse(value: unknown): OllamaChunk {
    const parsed = OllamaChatChunkSchema.safeParse(value);
    if (!parsed.success) throw modelError(this.#address, `unexpected reply shape: ${z.prettifyError(parsed.error)}`);
    return parsed.data;
  }

  async chat(request: ChatRequest): Promise<ChatResult> {
    throwIfAborted(request.signal);
    const { controller, dispose } = linkedController(request.signal);
    try {
      const client = await this.#client(controller.signal);
      const reply = this.#parse(await client.chat({ ...this.#body(request), stream: false }));
      const toolCalls = toolCallsOf(reply);
      return {
        text: reply.message?.content ?? '',
        ...(toolCalls.length ? { toolCalls } : {}),
        model: reply.model ?? request.model,
        ...(reply.done_reason === undefined ? {} : { finishReason: reply.done_reason }),
        usage: { promptTokens: reply.prompt_eval_count, completionTokens: reply.eval_count },
      };
    } catch (error) {
      throw this.#mapError(error, request);
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
    try {
      const client = await this.#client(controller.signal);
      const stream = await client.chat({ ...this.#body(request), stream: true });
      const toolCalls: ChatToolCall[] = [];
      let last: OllamaChunk | undefined;
      for await (const value of stream) {
        const chunk = this.#parse(value);
        last = chunk;
        const text = chunk.message?.content;
        if (text) yield { type: 'text', text };
        toolCalls.push(...toolCallsOf(chunk));
      }
      completed = true;
      if (toolCalls.length) yield { type: 'tool-calls', toolCalls };
      yield {
        type: 'finish',
        ...(last?.done_reason === undefined ? {} : { finishReason: last.done_reason }),
        usage: { promptTokens: last?.prompt_eval_count, completionTokens: last?.eval_count },
      };
    } catch (error) {
      throw this.#mapError(error, request);
    } finally {
      // Closes the HTTP request when the consumer stopped early.
      if (!completed) controller.abort();
      dispose();
    }
  }
}
