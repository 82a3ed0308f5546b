/**
 * Benchmark of building an OTLP/HTTP JSON trace export body: the SDK's
 * `JsonTraceSerializer` (objects, then `JSON.stringify`, then UTF-8) against
 * our `encodeOtlpJsonTraces` (one string, then UTF-8), on batches of spans
 * the real SDK made, shaped like a front-door request's (an HTTP server span
 * with its semantic-convention attributes, task and step spans, an event, a
 * client span). Both outputs are checked equal first. Each side runs in a
 * child process of its own (in one process, each pays for the other's
 * garbage), in interleaved rounds; each figure is the median of its rounds.
 *
 *   npm run bench:otlp-json   (BENCH_ROUNDS=9 BENCH_BATCH=512 BENCH_BATCHES=200 by default)
 *
 * Prints figures; asserts nothing.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { encodeOtlpJsonTraces } from '../runtime/telemetry/otlp-json-trace-encoder.js';
import { median, ratioSummary } from './support/ratios.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const BATCH = Number(process.env.BENCH_BATCH ?? 512);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 200);

/** `BATCH` finished spans: requests of 5 spans each, as the example agent's front door makes them. */
function frontDoorSpans(): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'agent', 'service.version': '0.1.0', 'process.pid': 4242, 'host.name': 'bench' }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer('framework', '0.1.0');
  for (let i = 0; memory.getFinishedSpans().length < BATCH; i++) {
    const server = tracer.startSpan('POST /stream', {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': 'POST',
        'url.path': '/stream',
        'url.scheme': 'http',
        'http.route': '/stream',
        'server.address': '127.0.0.1',
        'server.port': 8080,
        'client.address': '127.0.0.1',
        'user_agent.original': 'autocannon',
        'network.protocol.version': '1.1',
      },
    });
    const inServer = trace.setSpan(ROOT_CONTEXT, server);
    const task = tracer.startSpan('task route_to_task', { attributes: { 'task.name': 'route_to_task', 'session.id': `bench-${i % 50}` } }, inServer);
    const inTask = trace.setSpan(inServer, task);
    for (const step of ['classify', 'answer']) {
      const span = tracer.startSpan(`step ${step}`, { attributes: { 'step.name': step, 'step.index': step === 'classify' ? 0 : 1 } }, inTask);
      span.addEvent('step.output', { 'output.length': 42 });
      span.end();
    }
    const client = tracer.startSpan(
      'POST',
      {
        kind: SpanKind.CLIENT,
        attributes: { 'http.request.method': 'POST', 'url.full': 'http://127.0.0.1:8181/v1/data/guard', 'http.response.status_code': 200 },
      },
      inTask,
    );
    client.end();
    task.end();
    server.setAttribute('http.response.status_code', 200);
    server.setStatus({ code: SpanStatusCode.UNSET });
    server.end();
  }
  return memory.getFinishedSpans().slice(0, BATCH);
}

function timeUsPerSpan(encode: () => Uint8Array): number {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < BATCHES; i++) encode();
  return Number(process.hrtime.bigint() - t0) / 1000 / (BATCHES * BATCH);
}

const spans = frontDoorSpans();
const encoders = { sdk: () => JsonTraceSerializer.serializeRequest(spans)!, ours: () => Buffer.from(encodeOtlpJsonTraces(spans), 'utf8') };
const side = process.argv[2];
if (side === 'sdk' || side === 'ours') {
  // Child mode: one encoder only, so neither pays for the other's garbage; prints µs per span after a warm-up.
  timeUsPerSpan(encoders[side]);
  console.log(timeUsPerSpan(encoders[side]));
} else {
  if (Buffer.compare(Buffer.from(encoders.sdk()), encoders.ours()) !== 0) throw new Error('the two encodings differ');
  const run = (name: 'sdk' | 'ours') => Number(execFileSync(process.execPath, [fileURLToPath(import.meta.url), name], { encoding: 'utf8' }).trim());
  const rounds: { sdk: number; ours: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const first = round % 2 === 0;
    const a = run(first ? 'sdk' : 'ours');
    const b = run(first ? 'ours' : 'sdk');
    rounds.push(first ? { sdk: a, ours: b } : { sdk: b, ours: a });
  }
  console.log(
    `OTLP/JSON trace body, ${BATCH}-span batches (${encoders.sdk().length} bytes), ${BATCHES} batches per side per round, each side in a process of its own, ${ROUNDS} interleaved rounds (node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  );
  console.log(
    `  SDK JsonTraceSerializer ${median(rounds.map((r) => r.sdk)).toFixed(2)} µs/span, encodeOtlpJsonTraces ${median(rounds.map((r) => r.ours)).toFixed(2)} µs/span`,
  );
  console.log(`  ours / SDK ${ratioSummary(rounds.map((r) => r.ours / r.sdk))}`);
}
