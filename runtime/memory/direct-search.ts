import type { Logger } from '../core/logger.js';
import type { DirectHandler } from '../core/server/listen.js';
import { writeNodeError, writeNodeJson } from '../core/server/node-answer.js';
import { parseRequest } from '../core/server/parse-request.js';
import { receiveNodeJson } from '../core/server/read-json-body.js';
import { MEMORY_AUTH_CHALLENGE, memoryUnauthorized, type MemoryTokenCheck } from './memory-auth.js';
import { plainSearchRequest, SearchRequestSchema } from './memory-search.js';
import type { SystemMemory } from './system-memory.js';

export interface DirectMemorySearchOptions {
  memory: SystemMemory;
  tokens: MemoryTokenCheck;
  logger: Logger;
  maxBytes: number;
}

const PATH = '/v1/long-term-memory/search';

/**
 * `POST /v1/long-term-memory/search` answered on Node's own request and
 * response, below Hono (as the front door's `POST /stream`): the service's
 * hot route. Only the exact path; with a query string (`optimize_query`) it
 * goes to the app, whose route gives the same answers: the same token check
 * (401 with its challenge), body limit, JSON and schema checks, and
 * `{code, message, detail}` errors. A search's answer through Hono cost
 * more CPU than the search itself.
 */
export function directMemorySearch(options: DirectMemorySearchOptions): DirectHandler {
  const { memory, tokens, logger } = options;
  // The app adds AMS's `detail` to every error (amsErrorDetail).
  const fail = (response: Parameters<DirectHandler>[1], error: unknown, headers?: Record<string, string>) =>
    writeNodeError(response, error, { logger, path: PATH, ...(headers ? { headers } : {}), body: (e) => ({ ...e, detail: e.message }) });
  return (request, response) => {
    if (request.method !== 'POST' || request.url !== PATH) return false;
    const owner = tokens.ownerOf(request.headers.authorization);
    if (tokens.required && owner === undefined) {
      // As the app's middleware: refused before the body is read.
      fail(response, memoryUnauthorized(), MEMORY_AUTH_CHALLENGE);
      return true;
    }
    receiveNodeJson(request, response, { maxBytes: options.maxBytes, wellFormedText: true }, (error, raw) => {
      if (error) {
        fail(response, error);
        return;
      }
      try {
        const search = plainSearchRequest(raw) ?? parseRequest({ schema: SearchRequestSchema, raw, what: 'search' });
        // Without optimizeQuery the answer carries no query_optimized (SystemMemory.search adds it only when asked),
        // so it is written as it comes rather than copied without it.
        memory.search(search, { optimizeQuery: false, access: { owner, namespace: undefined, userId: undefined } }).then(
          (results) => writeNodeJson(response, 200, results),
          (thrown: unknown) => fail(response, thrown),
        );
      } catch (thrown) {
        fail(response, thrown);
      }
    });
    return true;
  };
}

const HEALTH_PATHS = new Set(['/v1/health', '/health']);

/**
 * `GET /v1/health` (and `/health`) answered below Hono, as the app's route
 * answers it (`{now, status, kv_store}`, 503 while Redis is down; no token
 * needed): a service that is only polled for its health and asked for
 * searches then never loads the app's HTTP adapter (see `listen`), which
 * held 4 MB of its idle memory. Exact paths only; with a query string,
 * or as `HEAD`, the app answers.
 */
export function directMemoryHealth(memory: Pick<SystemMemory, 'health'>, logger: Logger): DirectHandler {
  return (request, response) => {
    if (request.method !== 'GET' || request.url === undefined || !HEALTH_PATHS.has(request.url)) return false;
    memory.health().then(
      ({ healthy, body }) => writeNodeJson(response, healthy ? 200 : 503, body),
      (thrown: unknown) => writeNodeError(response, thrown, { logger, path: request.url ?? '/v1/health', body: (e) => ({ ...e, detail: e.message }) }),
    );
    return true;
  };
}
