import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { AgentResponse } from '../core/agent-response.js';
import { BadRequestError } from '../core/errors/bad-request-error.js';
import type { FrameworkCore } from '../core/framework-core.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { SessionStore } from '../sessions/session-store.js';
import { createBaseApp } from '../core/server/base-app.js';
import { mountChatCompat } from './chat-compat.js';
import { errorResponse } from '../core/server/http-error.js';
import { clientAbort, nodeBindings, requestHeader } from '../core/server/node-bindings.js';
import { hasBody, readJsonBody } from '../core/server/read-json-body.js';
import { resolveRequestSession, type RequestSession } from './session-resolver.js';
import { encodeNamedSseEvent, type SseEvent } from '../core/server/sse.js';
import { sseResponse, type SseResponseOptions } from '../core/server/sse-response.js';
import type { LazyAbortController } from '../core/abort.js';
import { responseToJson, runTaskForTransport } from '../core/task-events.js';
import type { AgentIdentity } from './agent-identity.js';

export type { AgentIdentity } from './agent-identity.js';

export interface FrontDoorOptions {
  core: FrameworkCore;
  agent: AgentIdentity;
  sessions: SessionStore;
  logger?: Logger;
  /** Largest accepted request body; default 1 MiB (MAX_BODY_BYTES). */
  maxBodyBytes?: number;
  /** Silence after which a keep-alive comment is sent on a stream; default 15 s. */
  keepAliveMs?: number;
  /** Also answer the Ollama chat API, so chat web interfaces can talk to the agent. */
  chatCompat?: boolean;
  /** API keys of the chat-compatibility endpoints (CHAT_API_KEYS). */
  chatApiKeys?: readonly string[];
  /** Continue anonymous chat conversations by their history (CHAT_ANONYMOUS_CONTINUATION; unsafe with more than one user). */
  chatAnonymousContinuation?: boolean;
  /** Each chat API key belongs to one person (CHAT_PER_USER_KEYS): approvals may then be asked of key callers without forwarded user headers. */
  chatPerUserKeys?: boolean;
  /** Sessions one client address may start per minute (SESSION_START_LIMIT); default 600, 0 = no limit. */
  sessionStartsPerMinute?: number;
}

/** Body of POST /stream and POST /query. */
export const QueryRequestSchema = z.looseObject({
  query: z.string({
    error: (issue) => (issue.input === undefined ? 'Field "query" is required.' : 'Field "query" must be a string.'),
  }),
  context_id: z.string().optional(),
  /** `text` (default): payloads as the spec shows them; `json`: every payload is a JSON object. */
  event_format: z.enum(['text', 'json']).optional(),
});
export type QueryRequest = z.infer<typeof QueryRequestSchema>;

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * The full-featured HTTP front door of an agent: POST /stream (SSE), POST
 * /query (one JSON document), POST /session/start, GET /health, and with
 * `chatCompat` the Ollama chat API. Returns a Hono app; serve it with
 * `serveFrontDoor` or call `app.request()` in tests.
 *
 * @example
 * const app = createFrontDoor({ core, agent: { name: 'echo', version: '1.0.0' }, sessions });
 */
/** Sessions one client address may start per minute unless configured. */
export const DEFAULT_SESSION_STARTS_PER_MINUTE = 600;

/** The address of the connection (the proxy's, behind one: forwarded headers are not trusted). */
function clientAddress(c: Context): string {
  return nodeBindings(c)?.incoming.socket.remoteAddress ?? 'unknown';
}

export function createFrontDoor(options: FrontDoorOptions): Hono {
  const { core, sessions } = options;
  const logger = options.logger ?? silentLogger;
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const app = createBaseApp({ logger });

  app.get('/health', (c) => c.json({ status: 'ok', name: options.agent.name, version: options.agent.version }));

  app.post('/session/start', async (c) => {
    await readOptionalObject(c, maxBytes);
    // A flood of starts from one address (which once evicted live sessions) is refused, per address and minute.
    const admitted = await sessions.admitStart(clientAddress(c), options.sessionStartsPerMinute ?? DEFAULT_SESSION_STARTS_PER_MINUTE);
    if (!admitted.allowed) {
      return c.json(
        { code: 'rate_limited', message: `Too many sessions started from this address; try again in ${admitted.retryAfterSeconds} s (SESSION_START_LIMIT).` },
        429,
        { 'Retry-After': String(admitted.retryAfterSeconds) },
      );
    }
    const started = await sessions.start();
    return c.json({
      session_token: started.token,
      context_id: started.contextId,
      expires_at: new Date(started.expiresAt).toISOString(),
    });
  });

  app.post('/stream', async (c) => {
    const body = await readQueryRequest(c, maxBytes);
    const session = await resolveRequestSession(sessions, requestHeader(c, 'authorization'));
    return sseResponse(c, queryStream({ core, body, session, abort: clientAbort(c), logger, keepAliveMs: options.keepAliveMs }));
  });

  app.post('/query', async (c) => {
    const body = await readQueryRequest(c, maxBytes);
    const session = await resolveRequestSession(sessions, requestHeader(c, 'authorization'));
    const abort = clientAbort(c);
    const events: { event: AgentResponse['type']; data: Record<string, unknown> }[] = [];
    let result: Record<string, unknown> | null = null;
    let error: Record<string, unknown> | null = null;
    for await (const response of runTaskForTransport({
      core,
      query: body.query,
      contextId: session.contextId,
      oneShot: session.anonymous,
      abort,
      logger,
    })) {
      const data = responseToJson(response);
      events.push({ event: response.type, data });
      if (response.type === 'result') result = data;
      if (response.type === 'error') error = data;
    }
    return c.json({ context_id: session.contextId, events, result, ...(error ? { error } : {}) });
  });

  if (options.chatCompat) {
    mountChatCompat(app, {
      core,
      sessions,
      agent: options.agent,
      logger,
      maxBodyBytes: maxBytes,
      ...(options.chatApiKeys ? { apiKeys: options.chatApiKeys } : {}),
      ...(options.chatAnonymousContinuation === undefined ? {} : { anonymousContinuation: options.chatAnonymousContinuation }),
      ...(options.chatPerUserKeys === undefined ? {} : { perUserKeys: options.chatPerUserKeys }),
    });
  }

  for (const [path, allow] of [
    ['/stream', 'POST'],
    ['/query', 'POST'],
    ['/session/start', 'POST'],
    ['/health', 'GET'],
  ] as const) {
    app.all(path, (c) =>
      errorResponse(new BadRequestError({ code: 'method_not_allowed', message: `${c.req.method} is not allowed on ${path}; use ${allow}.` }), { Allow: allow }),
    );
  }
  return app;
}

/** The events of POST /stream: the task's responses as SSE, with the conversation's id in `X-Context-Id`. */
export function queryStream(options: {
  core: FrameworkCore;
  body: QueryRequest;
  session: RequestSession;
  abort: LazyAbortController;
  logger: Logger;
  keepAliveMs?: number | undefined;
}): SseResponseOptions<AgentResponse> {
  const { body, session, abort } = options;
  const format = body.event_format ?? 'text';
  return {
    events: runTaskForTransport({
      core: options.core,
      query: body.query,
      contextId: session.contextId,
      oneShot: session.anonymous,
      abort,
      logger: options.logger,
    }),
    encode: format === 'text' ? toTextSseFrame : (response) => toSseEvent(response, 'json'),
    abort,
    keepAliveMs: options.keepAliveMs,
    headers: { 'X-Context-Id': session.contextId },
  };
}

/** Reads and validates the body of /stream and /query. */
export async function readQueryRequest(c: Context, maxBytes: number): Promise<QueryRequest> {
  const raw = await readJsonBody(c, { maxBytes });
  return parseQueryRequest(raw);
}

export function parseQueryRequest(raw: unknown): QueryRequest {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new BadRequestError({ code: 'invalid_request', message: 'The body must be a JSON object such as {"query": "..."}.' });
  }
  // The usual body, checked by hand; the schema (below) for everything else and for its messages.
  if (isPlainQuery(raw as Record<string, unknown>)) return raw as QueryRequest;
  const parsed = QueryRequestSchema.safeParse(raw);
  if (!parsed.success) {
    const message = parsed.error.issues.map((i) => (i.path.length ? `${i.message}` : i.message)).join(' ');
    throw new BadRequestError({ code: 'invalid_request', message });
  }
  return parsed.data;
}

/** `{query, context_id?, event_format?}` with valid values: what {@link QueryRequestSchema} accepts as is. */
function isPlainQuery(raw: Record<string, unknown>): boolean {
  if (typeof raw.query !== 'string') return false;
  const { context_id: contextId, event_format: format } = raw;
  return (contextId === undefined || typeof contextId === 'string') && (format === undefined || format === 'text' || format === 'json');
}

/** The body of /session/start is optional; when present it must be a JSON object. */
async function readOptionalObject(c: Context, maxBytes: number): Promise<void> {
  if (!hasBody(c)) return;
  const raw = await readJsonBody(c, { maxBytes });
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new BadRequestError({ code: 'invalid_request', message: 'The body must be a JSON object (or empty).' });
  }
}

/** {@link toSseEvent} in the `text` format, a text payload framed at once as one string (no event object). */
function toTextSseFrame(response: AgentResponse): SseEvent | string {
  switch (response.type) {
    case 'status':
    case 'text':
    case 'input_required':
      return encodeNamedSseEvent(response.type, response.text);
    default:
      return toSseEvent(response, 'text');
  }
}

/** One response as an SSE event of the full front door. */
export function toSseEvent(response: AgentResponse, format: 'text' | 'json'): SseEvent {
  try {
    if (format === 'json') return { event: response.type, data: JSON.stringify(responseToJson(response)) };
    switch (response.type) {
      case 'status':
      case 'text':
      case 'input_required':
        return { event: response.type, data: response.text };
      case 'result':
        return { event: 'result', data: JSON.stringify(response.data) };
      case 'error':
        return { event: 'error', data: JSON.stringify({ code: response.code, message: response.message }) };
    }
  } catch (error) {
    // JSON.stringify throws on BigInt and cycles: the client gets an error event, not a dropped stream.
    const message = `The task produced a ${response.type} that is not JSON: ${(error as Error).message}`;
    return { event: 'error', data: JSON.stringify({ code: 'internal_error', message }) };
  }
}
