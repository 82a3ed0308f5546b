import type { ServerResponse } from 'node:http';
import { errorCodeInfo } from '../error-codes.js';
import { FrameworkError } from '../framework-error.js';
import { errorFields, type Logger } from '../logger.js';
import { toPublicError } from '../public-error.js';
import type { ErrorBody } from './http-error.js';
import type { DirectHandler } from './listen.js';
import { endAtEndOfIo } from './write-batch.js';

/**
 * Writes a JSON answer on Node's response (a direct route's `c.json`): the
 * head is set now, the answer leaves with the others of this turn
 * (`endAtEndOfIo`).
 */
export function writeNodeJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) });
  endAtEndOfIo(response, text);
}

/**
 * The `{code, message}` answer of an error on Node's response, as a base
 * app's error handler gives it (`errorResponse`): our own errors with the
 * status of the error table, anything else a logged 500. `body` adds fields
 * to it (the memory service's `detail`). Once the head is sent, the
 * connection is closed instead.
 */
export function writeNodeError(
  response: ServerResponse,
  error: unknown,
  options: { logger: Logger; path: string; headers?: Record<string, string>; body?: (error: ErrorBody) => ErrorBody },
): void {
  if (!FrameworkError.isInstance(error)) options.logger.error('request failed', { path: options.path, ...errorFields(error) });
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const status = FrameworkError.isInstance(error) ? errorCodeInfo(error.code).httpStatus : 500;
  const body = toPublicError(error);
  writeNodeJson(response, status, options.body ? options.body(body) : body, options.headers);
}

/**
 * `GET <path>` answered below Hono with `body` as JSON (200), for a route
 * whose answer never changes (an agent's health): a service only polled for
 * its health then never loads the app's HTTP adapter (see `listen`), 4-6 MB
 * of its idle memory. The exact path only; with a query string, or as
 * `HEAD`, the app answers, as it did.
 */
export function directStaticJson(path: string, body: unknown): DirectHandler {
  return (request, response) => {
    if (request.method !== 'GET' || request.url !== path) return false;
    writeNodeJson(response, 200, body);
    return true;
  };
}
