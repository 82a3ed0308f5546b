/**
 * The whole local path in one process, with the real SDK: a server made by
 * `listen()` traces a request (continuing the caller's traceparent), the
 * exporter posts OTLP JSON to the supervisor's receiver, the store keeps it,
 * and the waterfall draws it with remote text made safe.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBaseApp } from '../../runtime/core/server/base-app.js';
import { listen, type Listening } from '../../runtime/core/server/listen.js';
import { createLogger } from '../../runtime/core/logger.js';
import { inSpan, tracingEnabled } from '../../runtime/core/telemetry/tracing.js';
import { startTelemetry, type Telemetry } from '../../runtime/telemetry/start-telemetry.js';
import { startTraceReceiver } from '../../runtime/telemetry/trace-receiver.js';
import { TraceStore } from '../../runtime/telemetry/trace-store.js';
import { pickTrace, renderWaterfall, traceView } from '../../runtime/telemetry/trace-view.js';

let root: string;
let store: TraceStore;
let receiver: Awaited<ReturnType<typeof startTraceReceiver>>;
let telemetry: Telemetry | undefined;
let server: Listening;
const logLines: string[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'fw-traces-'));
  store = new TraceStore({ root });
  receiver = await startTraceReceiver({ store });
  const logger = createLogger({ name: 'svc', write: (line) => logLines.push(line) });
  const app = createBaseApp({ logger });
  app.post('/work/:id', async (c) => {
    // A span name a service could be made to carry: escape sequences must not reach the terminal raw.
    await inSpan('step \u001b[31mred\u001b[0m', {}, async () => logger.info('inside'));
    return c.json({ ok: true });
  });
  server = await listen(app, { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await telemetry?.shutdown();
  await server?.close();
  await receiver?.close();
  await rm(root, { recursive: true, force: true });
});

describe('with nothing configured', () => {
  it('starts no SDK and the server answers without traceparent', async () => {
    expect(await startTelemetry({ env: {}, defaultServiceName: 'svc' })).toBeUndefined();
    expect(tracingEnabled()).toBe(false);
    const response = await fetch(`${server.url}/work/1`, {
      method: 'POST',
      headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('traceparent')).toBeNull();
    expect(JSON.parse(logLines.at(-1)!)).not.toHaveProperty('trace_id');
  });
});

describe('what a service loads', () => {
  const probe = fileURLToPath(new URL('./fixtures/sdk-modules-loaded.mjs', import.meta.url));
  const compiled = fileURLToPath(new URL('../../dist/runtime/telemetry/start-telemetry.js', import.meta.url));
  const loaded = async (env: Record<string, string>) =>
    (await promisify(execFile)(process.execPath, [probe, compiled, JSON.stringify(env)], { timeout: 30_000 })).stdout
      .split('\n')
      .filter(Boolean)
      .map((url) => url.replace(/^.*node_modules\/@opentelemetry\/([^/]+)\/.*$/, '$1'));

  it('with nothing configured, no SDK or exporter module is loaded (traces or metrics); with a metrics endpoint, the metrics SDK only', async () => {
    expect(await loaded({})).toEqual([]);
    expect(await loaded({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_METRIC_EXPORT_INTERVAL: '1000', OTEL_SERVICE_NAME: 'x' })).toEqual([]);
    // Run `npm run build` first: the probe loads the compiled module as a service does.
    const metricsOnly = new Set(await loaded({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_TRACES_EXPORTER: 'none' }));
    expect(metricsOnly).toEqual(new Set(['sdk-metrics', 'exporter-metrics-otlp-proto']));
  }, 60_000);
});

describe('with the local receiver', () => {
  it('keeps the request trace in the store, and trace draws it safely', async () => {
    telemetry = await startTelemetry({ env: { FRAMEWORK_TRACES_URL: receiver.tracesUrl, OTEL_SERVICE_NAME: 'svc-1' }, defaultServiceName: 'svc' });
    expect(telemetry?.config).toEqual({ serviceName: 'svc-1', localUrl: receiver.tracesUrl });
    const caller = '0af7651916cd43dd8448eb211c80319c';
    const response = await fetch(`${server.url}/work/123456`, { method: 'POST', headers: { traceparent: `00-${caller}-b7ad6b7169203331-01` } });
    expect(response.headers.get('traceparent')).toMatch(new RegExp(`^00-${caller}-[0-9a-f]{16}-01$`));
    const line = JSON.parse(logLines.at(-1)!) as { trace_id: string; span_id: string };
    expect(line.trace_id).toBe(caller);
    expect(line.span_id).toMatch(/^[0-9a-f]{16}$/);

    await telemetry!.shutdown();
    telemetry = undefined;
    const view = traceView(pickTrace(store.read(), {}))!;
    expect(view.traceId).toBe(caller);
    expect(view.spans.map((span) => [span.depth, span.service, span.kind, span.name])).toEqual([
      [0, 'svc-1', 'SERVER', 'POST /work/{id}'],
      [1, 'svc-1', 'INTERNAL', 'step \u001b[31mred\u001b[0m'],
    ]);
    expect(view.spans[0]!.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/work/{id}', 'http.response.status_code': 200 });
    const drawn = renderWaterfall(view);
    expect(drawn).not.toContain('\u001b');
    expect(drawn).toContain('step \\x1b[31mred\\x1b[0m');
    expect(drawn.split('\n')[1]).toMatch(/^svc-1 +POST \/work\/\{id\} +█+ +\d/);
    expect((await readFile(join(store.dir, 'spans.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(2);
  });

  it('refuses what is not an OTLP JSON export with a 4xx JSON error', async () => {
    const protobuf = await fetch(receiver.tracesUrl, { method: 'POST', headers: { 'Content-Type': 'application/x-protobuf' }, body: new Uint8Array([1, 2]) });
    expect(protobuf.status).toBe(415);
    const wrong = await fetch(receiver.tracesUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'zz' }] }] }] }),
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/^Not an OTLP JSON trace export: resourceSpans\.0\.scopeSpans\.0\.spans\.0\.traceId/),
    });
  });
});

describe('TraceStore', () => {
  it('stays bounded: past maxBytes the file rotates and only two are kept', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fw-trace-store-'));
    try {
      const small = new TraceStore({ root: dir, maxBytes: 2_000 });
      const span = (i: number) => ({
        traceId: i.toString(16).padStart(32, '0'),
        spanId: i.toString(16).padStart(16, '0'),
        service: 's',
        name: `span ${i}`,
        kind: 'INTERNAL',
        startMs: i,
        durationMs: 1,
        status: 'unset' as const,
        attributes: { pad: 'x'.repeat(200) },
        events: [],
        links: [],
      });
      for (let i = 1; i <= 100; i++) small.append([span(i)]);
      expect(small.size()).toBeLessThan(2 * 2_000 + 1_000);
      const kept = small.read();
      expect(kept.at(-1)!.name).toBe('span 100');
      expect(kept.length).toBeLessThan(20);
      expect(pickTrace(kept, {})[0]!.name).toBe('span 100');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
