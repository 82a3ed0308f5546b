import { Hono } from 'hono';
import { BadRequestError } from '../errors/bad-request-error.js';
import { FrameworkError } from '../framework-error.js';
import { errorFields, type Logger } from '../logger.js';
import { errorResponse } from './http-error.js';
import { metricsResponse } from '../telemetry/service-metrics.js';

/**
 * A Hono app whose every failure is a JSON `{code, message}` answer: our own
 * errors with their status, anything else a logged 500, unknown routes a 404
 * (with `notFoundHint` appended to the message). `GET /metrics` answers the
 * process's metrics as Prometheus text.
 */
export function createBaseApp(options: { logger: Logger; notFoundHint?: string }): Hono {
  const app = new Hono();
  app.onError((error, c) => {
    if (!FrameworkError.isInstance(error)) options.logger.error('request failed', { path: c.req.path, ...errorFields(error) });
    return errorResponse(error);
  });
  app.get('/metrics', () => metricsResponse());
  app.notFound((c) =>
    errorResponse(new BadRequestError({ code: 'not_found', message: `No route ${c.req.method} ${c.req.path}${options.notFoundHint ?? ''}.` })),
  );
  return app;
}
