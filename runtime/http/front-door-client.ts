import { createParser } from 'eventsource-parser';
import { z } from 'zod';
import type { AgentResponse } from '../core/agent-response.js';
import { AgentHttpError } from './errors/agent-http-error.js';
import { AgentNotReadyError } from '../core/errors/agent-not-ready-error.js';
import { SessionInvalidError } from '../sessions/errors/session-invalid-error.js';
import { StreamInterruptedError } from './errors/stream-interrupted-error.js';
import { FrameworkError } from '../core/framework-error.js';
import { parseFrontDoorEvent } from './front-door-event.js';

export interface FrontDoorClientOptions {
  /** The agent's front door, e.g. `http://127.0.0.1:8100`. */
  url: string;
  /** Milliseconds to wait for the answer's headers (not for the whole stream); default 10 000. */
  connectTimeoutMs?: number;
  /**
   * Milliseconds a stream may stay silent (no event, no keep-alive comment)
   * before it counts as cut; default 60 000. Our front door sends a
   * keep-alive every 15 s, so only a stuck or unreachable agent trips it.
   */
  idleTimeoutMs?: number;
  /** Most characters buffered for one event before the stream is refused; default 4 MiB. */
  maxEventChars?: number;
  fetch?: typeof fetch;
}

/** What POST /session/start returned. */
export interface FrontDoorSession {
  token: string;
  contextId?: string;
  expiresAt?: string;
}

const SessionStartSchema = z.object({
  session_token: z.string().min(1),
  context_id: z.string().optional(),
  expires_at: z.string().optional(),
});
const ErrorBodySchema = z.object({ code: z.string(), message: z.string() });

/**
 * A client of an agent's HTTP front door: starts sessions and streams the
 * responses of POST /stream as `AgentResponse`s, parsed from real SSE with
 * `eventsource-parser`. It asks for the `json` event format, so an
 * `input_required` keeps its action type and structured data; agents that
 * only speak the spec's text format (or the minimal front door) work too.
 *
 * Failures are typed: `AgentNotReadyError` (nothing answers), `SessionInvalidError`
 * (401), `AgentHttpError` (any other HTTP error, with the agent's code), and
 * `StreamInterruptedError` (the stream was cut before the agent ended it, or
 * stayed silent past `idleTimeoutMs`).
 * Aborting the signal ends the stream quietly and closes the connection,
 * which cancels the task on the agent.
 *
 * @example
 * const client = new FrontDoorClient({ url: 'http://127.0.0.1:8100' });
 * const { token } = await client.startSession();
 * for await (const response of client.stream({ query: 'plan a trip', token })) console.log(response);
 */
export class FrontDoorClient {
  #lastTraceId: string | undefined;
  readonly url: string;
  readonly #connectTimeoutMs: number;
  readonly #idleTimeoutMs: number;
  readonly #maxEventChars: number;
  readonly #fetch: typeof fetch;

  constructor(options: FrontDoorClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
    this.#maxEventChars = options.maxEventChars ?? 4 * 1024 * 1024;
    this.#fetch = options.fetch ?? fetch;
  }

  /** POST /session/start: a new conversation and its bearer token. */
  async startSession(options: { signal?: AbortSignal } = {}): Promise<FrontDoorSession> {
    const response = await this.#post('/session/start', { body: {}, signal: options.signal });
    let body: unknown;
    try {
      body = await response.json();
    } catch (error) {
      throw new AgentHttpError({
        url: this.url,
        status: response.status,
        code: 'invalid_response',
        detail: `POST /session/start did not return JSON (${(error as Error).message})`,
      });
    }
    const parsed = SessionStartSchema.safeParse(body);
    if (!parsed.success) {
      throw new AgentHttpError({
        url: this.url,
        status: response.status,
        code: 'invalid_response',
        detail: 'POST /session/start did not return a session_token',
      });
    }
    const { session_token: token, context_id: contextId, expires_at: expiresAt } = parsed.data;
    return { token, ...(contextId === undefined ? {} : { contextId }), ...(expiresAt === undefined ? {} : { expiresAt }) };
  }

  /** POST /stream: the task's responses as they arrive. */
  async *stream(options: { query: string; token?: string; signal?: AbortSignal }): AsyncGenerator<AgentResponse, void, undefined> {
    const { signal } = options;
    const response = await this.#post('/stream', {
      body: { query: options.query, event_format: 'json' },
      token: options.token,
      signal,
      accept: 'text/event-stream',
    });
    if (!response.body) return;

    const queue: AgentResponse[] = [];
    let buffered = 0;
    const parser = createParser({
      onEvent: (event) => {
        buffered = 0;
        const parsed = parseFrontDoorEvent({ event: event.event ?? 'message', data: event.data });
        if (parsed) queue.push(parsed);
      },
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        let chunk: ReadableStreamReadResult<string>;
        let idle = false;
        const timer = setTimeout(() => {
          idle = true;
          void reader.cancel().catch(() => undefined);
        }, this.#idleTimeoutMs);
        timer.unref();
        try {
          chunk = await reader.read();
        } catch (error) {
          if (signal?.aborted) return;
          throw new StreamInterruptedError({ url: this.url, cause: error });
        } finally {
          clearTimeout(timer);
        }
        if (idle) throw new StreamInterruptedError({ url: this.url, detail: `no data for ${durationText(this.#idleTimeoutMs)}` });
        if (chunk.done) break;
        buffered += chunk.value.length;
        if (buffered > this.#maxEventChars) {
          throw new AgentHttpError({
            url: this.url,
            status: response.status,
            code: 'event_too_large',
            detail: `an event exceeded ${this.#maxEventChars} characters`,
          });
        }
        parser.feed(chunk.value);
        while (queue.length > 0) yield queue.shift() as AgentResponse;
      }
    } finally {
      // Closing the body tells the agent the client went away, which cancels the task.
      await reader.cancel().catch(() => undefined);
    }
  }

  /** The trace id of the last answer, from its `traceparent` header (when the agent traces). */
  get lastTraceId(): string | undefined {
    return this.#lastTraceId;
  }

  async #post(path: string, options: { body: unknown; token?: string; signal?: AbortSignal; accept?: string }): Promise<Response> {
    // The connect timeout must stop at the headers: the same signal also governs the body, and a stream may run for minutes.
    const headersTimeout = new AbortController();
    const timer = setTimeout(() => headersTimeout.abort(), this.#connectTimeoutMs);
    timer.unref();
    const signal = options.signal ? AbortSignal.any([options.signal, headersTimeout.signal]) : headersTimeout.signal;
    let response: Response;
    try {
      response = await this.#fetch(`${this.url}${path}`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: options.accept ?? 'application/json',
          ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}),
        },
        body: JSON.stringify(options.body),
        signal,
      });
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason ?? error;
      const detail = headersTimeout.signal.aborted ? `no answer within ${this.#connectTimeoutMs} ms` : connectionDetail(error);
      throw new AgentNotReadyError({ url: this.url, detail, cause: error });
    } finally {
      clearTimeout(timer);
    }
    const traced = /^00-([0-9a-f]{32})-/.exec(response.headers.get('traceparent') ?? '');
    if (traced) this.#lastTraceId = traced[1];
    if (response.ok) return response;
    const text = await response.text().catch(() => '');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const error = ErrorBodySchema.safeParse(body);
    if (response.status === 401) {
      throw new SessionInvalidError(error.success ? { message: error.data.message } : {});
    }
    throw new AgentHttpError({
      url: this.url,
      status: response.status,
      ...(error.success ? { code: error.data.code, detail: error.data.message } : { detail: `${path}: ${text.slice(0, 200) || response.statusText}` }),
    });
  }
}

/** The low-level reason a connection failed (`ECONNREFUSED`, `ENOTFOUND`, ...). */
function connectionDetail(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code === 'ECONNREFUSED' ? 'connection refused' : cause.code;
  if (FrameworkError.isInstance(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}

function durationText(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}
