import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { isConnectionFailure, runtimeUnavailable } from '../llm/model-errors.js';
import { ModelServerError } from './model-server-error.js';
import { resolveOllamaHost } from './ollama-source.js';

/** `/api/show` as the `model show` command reads it. */
export const ShowResponseSchema = z
  .object({
    license: z.string().default(''),
    modelfile: z.string().default(''),
    parameters: z.string().default(''),
    template: z.string().default(''),
    system: z.string().default(''),
    details: z.record(z.string(), z.unknown()).default({}),
    model_info: z.record(z.string(), z.unknown()).default({}),
    capabilities: z.array(z.string()).default([]),
    messages: z.array(z.object({ role: z.string(), content: z.string() })).optional(),
    modified_at: z.string().optional(),
  })
  .passthrough();
export type ShowResponse = z.infer<typeof ShowResponseSchema>;

/** `/api/ps`. */
export const PsResponseSchema = z.object({
  models: z.array(
    z
      .object({
        name: z.string(),
        model: z.string().optional(),
        size: z.number().default(0),
        digest: z.string().default(''),
        expires_at: z.string().optional(),
        size_vram: z.number().optional(),
        context_length: z.number().optional(),
      })
      .passthrough(),
  ),
});
export type PsResponse = z.infer<typeof PsResponseSchema>;

/** One line of a streamed `/api/chat` answer. */
const ChatLineSchema = z.object({
  message: z.object({ role: z.string(), content: z.string().default('') }).optional(),
  done: z.boolean().default(false),
  done_reason: z.string().optional(),
  eval_count: z.number().optional(),
  prompt_eval_count: z.number().optional(),
  error: z.string().optional(),
});

/** The end of a chat: the whole reply and Ollama's counts. */
export interface ChatReply {
  content: string;
  doneReason?: string;
  evalCount?: number;
  promptEvalCount?: number;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

const ProgressLineSchema = z.object({ status: z.string().optional(), error: z.string().optional() }).passthrough();
const ErrorBodySchema = z.object({ error: z.string() });

/**
 * A client of a running model server's API (ours or Ollama's) for the
 * `model` commands, which, as Ollama's CLI, always talk to the server at
 * `OLLAMA_HOST`. A server that is not there is a `model_runtime_unavailable`
 * error naming the fix; an error answer is a `ModelServerError`.
 *
 * @example
 * const client = new ModelServerClient({});
 * const show = await client.show('smollm2');
 */
export class ModelServerClient {
  readonly baseUrl: string;

  /** `host`: the server's address; default `OLLAMA_HOST`, then http://127.0.0.1:11434. */
  constructor(options: { host?: string; env?: NodeJS.ProcessEnv }) {
    this.baseUrl = resolveOllamaHost(options);
  }

  async #fetch(path: string, init: RequestInit & { duplex?: 'half' }): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, init);
    } catch (error) {
      if (isConnectionFailure(error)) throw runtimeUnavailable({ baseUrl: this.baseUrl, setting: 'OLLAMA_HOST' }, error);
      throw error;
    }
    if (response.ok || init.method === 'HEAD') return response;
    const text = await response.text();
    let message = text.trim() || `HTTP ${response.status}`;
    try {
      message = ErrorBodySchema.parse(JSON.parse(text)).error;
    } catch {
      // Not Ollama's error shape: the text as it is.
    }
    throw new ModelServerError({ status: response.status, message });
  }

  #json(path: string, method: string, body?: unknown): Promise<Response> {
    return this.#fetch(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }) });
  }

  async show(model: string): Promise<ShowResponse> {
    return ShowResponseSchema.parse(await (await this.#json('/api/show', 'POST', { model })).json());
  }

  async ps(): Promise<PsResponse> {
    return PsResponseSchema.parse(await (await this.#json('/api/ps', 'GET')).json());
  }

  async copy(source: string, destination: string): Promise<void> {
    await this.#json('/api/copy', 'POST', { source, destination });
  }

  async delete(model: string): Promise<void> {
    await this.#json('/api/delete', 'DELETE', { model });
  }

  /** Whether the server has the blob `sha256:<hex>`. */
  async hasBlob(digest: string): Promise<boolean> {
    return (await this.#fetch(`/api/blobs/${digest}`, { method: 'HEAD' })).status === 200;
  }

  /** Streams the file at `path` to the server as the blob `digest` (the server checks the digest). */
  async uploadBlob(digest: string, path: string): Promise<void> {
    const body = Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>;
    await this.#fetch(`/api/blobs/${digest}`, { method: 'POST', body, duplex: 'half' });
  }

  /** `POST /api/create`, streamed; calls `onStatus` with each status line; rejects on an error line. */
  async create(request: Record<string, unknown>, onStatus: (status: string) => void = () => {}): Promise<void> {
    const response = await this.#json('/api/create', 'POST', { ...request, stream: true });
    for await (const value of ndjson(response)) {
      const line = ProgressLineSchema.parse(value);
      if (line.error) throw new ModelServerError({ status: 500, message: line.error });
      if (line.status) onStatus(line.status);
    }
  }

  /** `POST /api/chat`, streamed: `onText` gets each piece as it comes; resolves to the whole reply. */
  async chat(options: {
    model: string;
    messages: readonly ChatMessage[];
    options?: Record<string, unknown>;
    signal?: AbortSignal;
    onText?: (text: string) => void;
  }): Promise<ChatReply> {
    const response = await this.#fetch('/api/chat', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: options.model, messages: options.messages, stream: true, ...(options.options ? { options: options.options } : {}) }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    let content = '';
    for await (const value of ndjson(response)) {
      const line = ChatLineSchema.parse(value);
      if (line.error) throw new ModelServerError({ status: 500, message: line.error });
      const text = line.message?.content ?? '';
      if (text) {
        content += text;
        options.onText?.(text);
      }
      if (line.done) {
        return {
          content,
          ...(line.done_reason ? { doneReason: line.done_reason } : {}),
          ...(line.eval_count === undefined ? {} : { evalCount: line.eval_count }),
          ...(line.prompt_eval_count === undefined ? {} : { promptEvalCount: line.prompt_eval_count }),
        };
      }
    }
    throw new ModelServerError({ status: 502, message: 'the model server ended the chat stream without its last line' });
  }
}

/** The JSON values of an NDJSON body, one per line. */
async function* ndjson(response: Response): AsyncGenerator<unknown> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line) yield JSON.parse(line);
    }
  }
  if (buffer.trim()) yield JSON.parse(buffer);
}
