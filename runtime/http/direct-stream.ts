import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FrameworkCore } from '../core/framework-core.js';
import type { Logger } from '../core/logger.js';
import type { DirectHandler } from '../core/server/listen.js';
import { writeNodeError } from '../core/server/node-answer.js';
import { nodeClientAbort } from '../core/server/node-bindings.js';
import { checkJsonContentType, parseJsonBodyText, receiveNodeBody } from '../core/server/read-json-body.js';
import { streamSseToNode } from '../core/server/sse-response.js';
import type { SessionStore } from '../sessions/session-store.js';
import { parseQueryRequest, queryStream } from './front-door.js';
import { resolveRequestSession } from './session-resolver.js';

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
    receiveNodeBody(request, response, options.maxBytes, (error, text) => {
      if (error) writeNodeError(response, error, { logger: options.logger, path: '/stream' });
      else
        void answer(request, response, text, options).catch((thrown: unknown) => writeNodeError(response, thrown, { logger: options.logger, path: '/stream' }));
    });
    return true;
  };
}

async function answer(request: IncomingMessage, response: ServerResponse, text: string, options: DirectStreamOptions): Promise<void> {
  const contentType = request.headers['content-type'];
  checkJsonContentType(contentType);
  const body = parseQueryRequest(parseJsonBodyText(text));
  const session = await resolveRequestSession(options.sessions, request.headers.authorization);
  const abort = nodeClientAbort(response);
  streamSseToNode(response, queryStream({ core: options.core, body, session, abort, logger: options.logger, keepAliveMs: options.keepAliveMs }));
}
