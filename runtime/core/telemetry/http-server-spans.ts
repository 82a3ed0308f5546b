import { ServerResponse, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';
import type { Span } from '@opentelemetry/api';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE, ATTR_SERVER_PORT, ATTR_URL_PATH } from './http-attribute-names.js';
import { routeLabel } from './route-label.js';
import { DurationHistogram } from './duration-histogram.js';
import { plainMetric } from './service-metrics.js';
import { beginSpan, openTelemetryApi, SPAN_KIND, traceparentOf, tracingEnabled } from './tracing.js';

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

/** Paths polled by supervisors and scrapers: counted in the metrics, never traced (they would bury the real traces). */
const UNTRACED = new Set(['/health', '/metrics']);

const durations = new DurationHistogram({
  name: 'http_server_request_duration_seconds',
  help: 'Duration of HTTP requests served, by method, route and status code (count: requests; status_code 5xx: errors).',
  labelNames: ['method', 'route', 'status_code'],
});
let counting = false;

function recordDuration(method: string, route: string, status: number, seconds: number): void {
  // Listed in /metrics from the first request counted (a server that counts none, the policy engine, does not show it).
  if (!counting) {
    counting = true;
    plainMetric(durations);
  }
  durations.observe(seconds, method, route, statusLabel(status));
}

/** Status codes as label values, made once each (not a new string per request). */
const STATUS_LABELS: string[] = [];

function statusLabel(status: number): string {
  return (STATUS_LABELS[status] ??= String(status));
}

/**
 * The response class of every server `listen()` starts: it carries the
 * `traceparent` of the request's server span into the head when the head is
 * written, unless the handler set its own. Set with `setHeader` instead, the
 * header made Node take its slow path for every head written from a list
 * (`writeHead(status, [...])`, as event streams and JSON answers are): each
 * listed header was then set one by one into the response's header map.
 */
export class TracedServerResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** The `traceparent` answer header, added to the head when it is written (then cleared). */
  traceparent: string | undefined = undefined;

  override writeHead(
    statusCode: number,
    message?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    const traceparent = this.traceparent;
    if (traceparent !== undefined) {
      this.traceparent = undefined;
      if (typeof message === 'string') headers = withTraceparent(this, headers, traceparent);
      else message = withTraceparent(this, message, traceparent);
    }
    // Node's writeHead reads an absent message or headers argument as not given.
    return super.writeHead(statusCode, message as string, headers);
  }
}

/** `headers` (a head's headers as `writeHead` takes them) with `traceparent` added, unless the handler already set one. */
function withTraceparent(
  response: ServerResponse,
  headers: OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined,
  traceparent: string,
): OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined {
  if (response.hasHeader('traceparent')) return headers;
  if (headers === undefined) {
    response.setHeader('traceparent', traceparent);
    return headers;
  }
  if (Array.isArray(headers)) {
    // Node takes a flat list [name, value, ...] or a list of [name, value] pairs.
    const pairs = headers.length > 0 && Array.isArray(headers[0]);
    const step = pairs ? 1 : 2;
    for (let i = 0; i < headers.length; i += step) {
      const name = pairs ? (headers[i] as OutgoingHttpHeader[])[0] : headers[i];
      if (typeof name === 'string' && name.toLowerCase() === 'traceparent') return headers;
    }
    return pairs ? [...headers, ['traceparent', traceparent]] : [...headers, 'traceparent', traceparent];
  }
  for (const name in headers) if (name.toLowerCase() === 'traceparent') return headers;
  return { ...headers, traceparent };
}

const STARTED = Symbol('request started');
type Counted = ServerResponse & { [STARTED]?: number };

/** Counts the request of a response that closed (`this`), from the instant `traceRequests` noted. */
function countOnClose(this: Counted): void {
  const { req: request, statusCode } = this;
  recordDuration(request.method ?? 'GET', routeLabel(request.url, statusCode), statusCode, (performance.now() - (this[STARTED] ?? 0)) / 1000);
}

/**
 * Wraps a server's request listener: with `countRequests` every request is
 * counted in `http_server_request_duration_seconds` (a server with metrics of
 * its own, the policy engine's, counts nothing here: a hot route pays nothing
 * while tracing is off), and when tracing is on it runs in a
 * SERVER span that continues the caller's W3C `traceparent` and is returned
 * to the caller in the response's `traceparent` header. The span lasts until
 * the response is done (a stream's whole life) and is named after the route.
 */
export function traceRequests(listener: Listener, options: { countRequests: boolean }): Listener {
  const { countRequests } = options;
  return (request, response) => {
    if (!countRequests && !tracingEnabled()) {
      listener(request, response);
      return;
    }
    const method = request.method ?? 'GET';
    const started = countRequests ? performance.now() : 0;
    if (!tracingEnabled() || UNTRACED.has(request.url ?? '')) {
      if (countRequests) {
        (response as Counted)[STARTED] = started;
        // One shared listener (a response closes once): no closure, no once-wrapper per request.
        response.on('close', countOnClose);
      }
      listener(request, response);
      return;
    }
    const { context, propagation, ROOT_CONTEXT } = openTelemetryApi();
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const path = (request.url ?? '/').split('?', 1)[0] as string;
    const { span, active } = beginSpan(
      method,
      {
        kind: SPAN_KIND.SERVER,
        attributes: { [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_URL_PATH]: path, [ATTR_SERVER_PORT]: request.socket.localPort ?? 0 },
      },
      parent,
    );
    const traceparent = traceparentOf(span);
    if (traceparent) {
      if (response instanceof TracedServerResponse) response.traceparent = traceparent;
      else response.setHeader('traceparent', traceparent);
    }
    // One listener for both (the route is worked out once); `on`, not `once`: a response closes once.
    response.on('close', () => {
      const route = routeLabel(request.url, response.statusCode);
      if (countRequests) recordDuration(method, route, response.statusCode, (performance.now() - started) / 1000);
      endServerSpan(span, method, route, response);
    });
    context.with(active, listener, undefined, request, response);
  };
}

function endServerSpan(span: Span, method: string, route: string, response: ServerResponse): void {
  const status = response.statusCode;
  span.updateName(`${method} ${route}`);
  span.setAttribute(ATTR_HTTP_ROUTE, route);
  span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  if (status >= 500) span.setStatus({ code: openTelemetryApi().SpanStatusCode.ERROR });
  // A response cut off before it was complete (the client went away mid-stream).
  if (!response.writableFinished) span.setAttribute('http.response.aborted', true);
  span.end();
}
