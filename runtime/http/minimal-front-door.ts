import { randomUuid } from '../core/random-uuid.js';
import type { Hono } from 'hono';
import type { AgentResponse } from '../core/agent-response.js';
import type { FrameworkCore } from '../core/framework-core.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { DEFAULT_MAX_BODY_BYTES, readQueryRequest } from './front-door.js';
import { clientAbort } from '../core/server/node-bindings.js';
import { createBaseApp } from '../core/server/base-app.js';
import type { SseEvent } from '../core/server/sse.js';
import { sseResponse } from '../core/server/sse-response.js';
import { responseToJson, runTaskForTransport } from '../core/task-events.js';

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
  const app = createBaseApp({ logger, notFoundHint: '; this minimal front door has only POST /stream' });
  app.post('/stream', async (c) => {
    const body = await readQueryRequest(c, maxBytes);
    const abort = clientAbort(c);
    const responses = runTaskForTransport({ core: options.core, query: body.query, contextId: randomUuid(), oneShot: true, abort, logger });
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
