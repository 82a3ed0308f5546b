/**
 * The server span's `traceparent` answer header, with the real SDK: it
 * reaches the client however the head is written (a flat list, a list of
 * pairs, an object, no headers at all, an implicit head), a handler's own
 * `traceparent` wins, and it is not in the response's header map while the
 * handler runs (set there, it made Node's `writeHead(status, [...])` take
 * its slow path, each listed header set one by one, on every traced
 * request).
 */
import { request as httpRequest, type ServerResponse } from 'node:http';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { Hono } from 'hono';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listen, type Listening } from '../../../runtime/core/server/listen.js';
import { setTracingEnabled } from '../../../runtime/core/telemetry/tracing.js';
import { exportingAtOnce } from '../../support/otel-spans.js';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [exportingAtOnce(exporter)] });
let listening: Listening;
/** The header names each request's response held as its handler started. */
const namesAtStart: string[][] = [];

const OWN = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

const heads: Record<string, (response: ServerResponse) => void> = {
  '/flat': (response) => response.writeHead(200, ['Content-Type', 'text/plain', 'X-Kind', 'flat']).end('flat'),
  '/pairs': (response) =>
    response
      .writeHead(200, [
        ['Content-Type', 'text/plain'],
        ['X-Kind', 'pairs'],
      ])
      .end('pairs'),
  '/object': (response) => response.writeHead(200, { 'Content-Type': 'text/plain', 'X-Kind': 'object' }).end('object'),
  '/message': (response) => response.writeHead(200, 'Fine', ['X-Kind', 'message']).end('message'),
  '/none': (response) => response.writeHead(204).end(),
  '/implicit': (response) => {
    response.setHeader('X-Kind', 'implicit');
    response.end('implicit');
  },
  '/own-list': (response) => response.writeHead(200, ['TraceParent', OWN]).end('own'),
  '/own-set': (response) => {
    response.setHeader('traceparent', OWN);
    response.writeHead(200, ['X-Kind', 'own-set']).end('own');
  },
};

beforeAll(async () => {
  provider.register();
  setTracingEnabled(true);
  listening = await listen(new Hono(), {
    host: '127.0.0.1',
    port: 0,
    direct: (request, response) => {
      const head = heads[request.url ?? ''];
      if (!head) return false;
      namesAtStart.push(response.getHeaderNames());
      head(response);
      return true;
    },
  });
});

afterAll(async () => {
  setTracingEnabled(false);
  await listening?.close();
  await provider.shutdown();
});

beforeEach(() => {
  exporter.reset();
  namesAtStart.length = 0;
});

/** GET `path` (node:http, so the raw head is seen): the answer's headers as sent, repeated names kept apart. */
function get(path: string): Promise<{ status: number; raw: string[] }> {
  return new Promise((resolve, reject) => {
    httpRequest(`${listening.url}${path}`, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, raw: response.rawHeaders }));
    })
      .on('error', reject)
      .end();
  });
}

function traceparents(raw: string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'traceparent') values.push(raw[i + 1]!);
  return values;
}

/** The traceparent naming the request's server span, as the W3C propagator writes it. */
async function serverSpanTraceparent(): Promise<string> {
  // The span ends when the response closes, just after the client has read it.
  for (let i = 0; i < 50 && exporter.getFinishedSpans().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  const [span] = exporter.getFinishedSpans();
  const ids = span!.spanContext();
  return `00-${ids.traceId}-${ids.spanId}-01`;
}

describe('the traceparent answer header', () => {
  it.each(['/flat', '/pairs', '/object', '/message', '/none', '/implicit'])('names the server span once, written with the head (%s)', async (path) => {
    const { status, raw } = await get(path);
    expect(status).toBeLessThan(300);
    expect(traceparents(raw)).toEqual([await serverSpanTraceparent()]);
    if (path !== '/none') expect(raw).toContain(path.slice(1));
    // Not set on the response beforehand, where it made every head written from a list take Node's slow path.
    expect(namesAtStart).toEqual([[]]);
  });

  it.each(['/own-list', '/own-set'])('is the handler’s own when it sets one (%s), never two', async (path) => {
    const { raw } = await get(path);
    expect(traceparents(raw)).toEqual([OWN]);
  });
});
