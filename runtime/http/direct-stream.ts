import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FrameworkCore } from '../core/framework-core.js';
import type { Logger } from '../core/logger.js';
import type { DirectHandler } from '../core/server/listen.js';
import { writeNodeError } from '../core/server/node-answer.js';
import { nodeClientAbort } from '../core/server/node-bindings.js';
import { receiveNodeJson } from '../core/server/read-json-body.js';
import { streamSseToNode } from '../core/server/sse-response.js';
import type { SessionStore } from '../sessions/session-store.js';
import { parseQueryRequest, queryStream, type QueryRequest } from './front-door.js';
import { requestSession, type RequestSession } from './session-resolver.js';

export interface DirectStreamOptions {
  core: FrameworkCore;
  sessions: SessionStore;
  logger: Logger;
  maxBytes: number;
  keepAliveMs?: number | undefined;
}

/**
 * `POST /stream` answered on Node's own request and response, below Hono:
 * the agent's hot route, as the policy server's decisions are. Only the
 * exact path (no query string); everything else, `/stream?x` included, goes
 * to the app, whose `/stream` route gives the same answers: same body
 * limits and checks, sessions, events and `{code, message}` errors. Skipping
 * Hono's Request, context and routing is a fifth of a small request's CPU.
 */
export function directStream(options: DirectStreamOptions): DirectHandler {
  return (request, response) => {
    if (request.method !== 'POST' || request.url !== '/stream') return false;
    receiveNodeJson(request, response, { maxBytes: options.maxBytes }, (error, raw) => {
      if (error) writeNodeError(response, error, { logger: options.logger, path: '/stream' });
      else answer(request, response, raw, options);
    });
    return true;
  };
}

/** Answers a received body: at once for an anonymous request, after the store's answer for a bearer token. */
function answer(request: IncomingMessage, response: ServerResponse, raw: unknown, options: DirectStreamOptions): void {
  const fail = (thrown: unknown) => writeNodeError(response, thrown, { logger: options.logger, path: '/stream' });
  let body: QueryRequest;
  let session: RequestSession | Promise<RequestSession>;
  try {
    body = parseQueryRequest(raw);
    session = requestSession(options.sessions, request.headers.authorization);
  } catch (thrown) {
    fail(thrown);
    return;
  }
  if (session instanceof Promise) {
    session.then((resolved) => stream(response, body, resolved, options)).catch(fail);
    return;
  }
  try {
    stream(response, body, session, options);
  } catch (thrown) {
    fail(thrown);
  }
}

function stream(response: ServerResponse, body: QueryRequest, session: RequestSession, options: DirectStreamOptions): void {
  const abort = nodeClientAbort(response);
  streamSseToNode(response, queryStream({ core: options.core, body, session, abort, logger: options.logger, keepAliveMs: options.keepAliveMs }));
}
