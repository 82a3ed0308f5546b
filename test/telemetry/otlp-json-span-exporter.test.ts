/**
 * The OTLP/JSON span exporter on real sockets: it sends what the SDK's own
 * OTLP/HTTP JSON exporter sends (same bytes, path and headers), the local
 * receiver keeps a batch holding NaN, and startTelemetry sends one encoding
 * of each span to both the user's JSON backend and the local receiver.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inSpan } from '../../runtime/core/telemetry/tracing.js';
import { createOtlpJsonSpanExporter } from '../../runtime/telemetry/otlp-json-span-exporter.js';
import { startTelemetry } from '../../runtime/telemetry/start-telemetry.js';
import { startTraceReceiver } from '../../runtime/telemetry/trace-receiver.js';
import { TraceStore } from '../../runtime/telemetry/trace-store.js';
import { waitFor } from '../support/net.js';
import { exportWith, spansWithNaN } from '../support/otel-spans.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A plain HTTP server recording every request (a stand-in backend that answers 200 `{}` as a collector does). */
async function recordingBackend(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let root: string;
let backend: Awaited<ReturnType<typeof recordingBackend>>;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'fw-otlp-json-'));
  backend = await recordingBackend();
});

afterAll(async () => {
  await backend?.close();
  await rm(root, { recursive: true, force: true });
});

describe('createOtlpJsonSpanExporter', () => {
  it("sends the same request as the SDK's OTLP/HTTP JSON exporter: bytes, path, content type, the user's headers", async () => {
    const spans = spansWithNaN();
    const options = { url: `${backend.url}/v1/traces`, headers: { authorization: 'Bearer t0ken', 'x-tenant': 'acme' } };
    const ours = createOtlpJsonSpanExporter(options);
    const sdk = new OTLPTraceExporter(options);
    expect(await exportWith(ours, spans)).toEqual({ code: ExportResultCode.SUCCESS });
    expect(await exportWith(sdk, spans)).toEqual({ code: ExportResultCode.SUCCESS });
    await Promise.all([ours.shutdown(), sdk.shutdown()]);
    const [a, b] = backend.received.splice(0);
    expect(a!.path).toBe('/v1/traces');
    expect(b!.path).toBe('/v1/traces');
    expect(a!.body.length).toBeGreaterThan(100);
    expect(a!.body.equals(b!.body)).toBe(true);
    for (const name of ['content-type', 'authorization', 'x-tenant', 'user-agent']) expect(a!.headers[name], name).toBe(b!.headers[name]);
  });

  it('reports a failed export (the backend answers 400) as the SDK does, without throwing', async () => {
    const refusing = createServer((_request, response) => response.writeHead(400).end('{}'));
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const exporter = createOtlpJsonSpanExporter({ url: `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/v1/traces` });
      const result = await exportWith(exporter, spansWithNaN());
      expect(result.code).toBe(ExportResultCode.FAILED);
      expect(result.error).toMatchObject({ code: 400 });
      await exporter.shutdown();
    } finally {
      await new Promise((resolve) => refusing.close(resolve));
    }
  });
});

describe('startTelemetry with a JSON backend and the local receiver', () => {
  it('sends every span to both (the JSON exporters sharing one encoding of each span)', async () => {
    const store = new TraceStore({ root: join(root, 'both') });
    const receiver = await startTraceReceiver({ store });
    backend.received.splice(0);
    // As in a service, the exporters read the OTEL_EXPORTER_OTLP_* variables from the process's environment.
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: backend.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      FRAMEWORK_TRACES_URL: receiver.tracesUrl,
      OTEL_SERVICE_NAME: 'both-svc',
    };
    const saved = { ...process.env };
    Object.assign(process.env, env);
    const telemetry = await startTelemetry({ env, defaultServiceName: 'svc' }).finally(() => {
      process.env = saved;
    });
    try {
      expect(telemetry?.config).toMatchObject({ otlp: { protocol: 'http/json' }, localUrl: receiver.tracesUrl });
      await inSpan('outer', { attributes: { 'k.nan': Number.NaN, 'k.s': 's' } }, async () => inSpan('inner', {}, async () => undefined));
      await telemetry!.shutdown();
      const names = store
        .read()
        .map((span) => span.name)
        .sort();
      expect(names).toEqual(['inner', 'outer']);
      // The backend also gets the metrics export (same endpoint): the trace requests only.
      const traces = () => backend.received.filter((request) => request.path === '/v1/traces');
      await waitFor(async () => traces().length > 0, 'the backend got the spans');
      const sent = traces().map((request) => JSON.parse(request.body.toString()) as { resourceSpans: { scopeSpans: { spans: { name: string }[] }[] }[] });
      expect(traces()[0]!.headers['content-type']).toBe('application/json');
      expect(sent.flatMap((request) => request.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((span) => span.name)))).sort()).toEqual(
        names,
      );
    } finally {
      await telemetry?.shutdown();
      await receiver.close();
    }
  });
});
