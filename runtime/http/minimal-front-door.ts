import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import type { AgentResponse } from '../core/agent-response.js';
import { BadRequestError } from '../core/errors/bad-request-error.js';
import type { FrameworkCore } from '../core/framework-core.js';
import { FrameworkError } from '../core/framework-error.js';
import { errorFields, silentLogger, type Logger } from '../core/logger.js';
import { DEFAULT_MAX_BODY_BYTES, readQueryRequest } from './front-door.js';
import { clientAbort } from './node-bindings.js';
import { errorResponse } from './http-error.js';
import type { SseEvent } from './sse.js';
import { sseResponse } from './sse-response.js';
import { responseToJson, runTaskForTransport } from './task-events.js';

export interface MinimalFrontDoorOptions {
  core: FrameworkCore;
  logger?: Logger;
  maxBodyBytes?: number;
  keepAliveMs?: number;
}

/**
 * The tutorial's minimal front door: only POST /stream with `{query}`. It
 * ignores headers, gives every request a fresh random context id, and sends
 * unnamed `data:` events whose payload is `{"message": <chunk>}`: the text of
 * a status, text or input-required response, the object of a result, or
 * `{code, message}` of an error.
 */
export function createMinimalFrontDoor(options: MinimalFrontDoorOptions): Hono {
  const logger = options.logger ?? silentLogger;
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const app = new Hono();
  app.onError((error, c) => {
    if (!FrameworkError.isInstance(error)) logger.error('request failed', { path: c.req.path, ...errorFields(error) });
    return errorResponse(error);
  });
  app.notFound((c) =>
    errorResponse(new BadRequestError({ code: 'not_found', message: `No route ${c.req.method} ${c.req.path}; this minimal front door has only POST /stream.` })),
  );
  app.post('/stream', async (c) => {
    const body = await readQueryRequest(c, maxBytes);
    const abort = clientAbort(c);
    const responses = runTaskForTransport({ core: options.core, query: body.query, contextId: randomUUID(), signal: abort.signal, logger });
    return sseResponse(c, { events: responses, encode: toMinimalEvent, abort, keepAliveMs: options.keepAliveMs });
  });
  return app;
}

/** `{"message": <chunk>}`: the text of a response, or the object of a result or error. */
function toMinimalEvent(response: AgentResponse): SseEvent {
  const json = responseToJson(response);
  const message = response.type === 'result' || response.type === 'error' ? json : json.text;
  try {
    return { data: JSON.stringify({ message }) };
  } catch (error) {
    const failure = { code: 'internal_error', message: `The task produced a result that is not JSON: ${(error as Error).message}` };
    return { data: JSON.stringify({ message: failure }) };
  }
}
