/**
 * Work under a span the sampler left out starts no span of its own and enters
 * no context (`setTracingEnabled`'s `unsampledParentsHaveUnsampledChildren`),
 * and this changes nothing that is recorded: the same requests through the
 * hello agent, with the real SDK and a ratio sampler over the same trace ids,
 * record the same spans with and without it. A remote parent that was not
 * sampled is not such a parent: the SDK's sampler still decides its children.
 */
import { context, propagation, ROOT_CONTEXT, trace, TraceFlags, type Span } from '@opentelemetry/api';
import { InMemorySpanExporter, ParentBasedSampler, TraceIdRatioBasedSampler, type IdGenerator, type Sampler } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterEach, describe, expect, it } from 'vitest';
import { inSpan, NO_SPAN, setTracingEnabled, spanIterator } from '../../../runtime/core/telemetry/tracing.js';
import { createHelloAgent } from '../../../runtime/examples/hello-agent.js';
import { seededRandom } from '../../planning/random-classifier-input.js';
import { exportingAtOnce } from '../../support/otel-spans.js';

const exporter = new InMemorySpanExporter();

/** Trace ids from a seeded sequence (only root spans draw one, and no root is ever skipped), span ids counted. */
function seededIds(seed: number): IdGenerator {
  const random = seededRandom(seed);
  const hex = (chars: number) => Array.from({ length: chars }, () => Math.floor(random() * 16).toString(16)).join('');
  let spans = 0;
  return { generateTraceId: () => hex(32), generateSpanId: () => (++spans).toString(16).padStart(16, '0') };
}

let provider: NodeTracerProvider | undefined;

function register(sampler: Sampler, seed: number): void {
  provider = new NodeTracerProvider({ sampler, idGenerator: seededIds(seed), spanProcessors: [exportingAtOnce(exporter)] });
  provider.register();
}

/** Undoes `register`: the API's globals freed for the next provider, nothing recorded kept. */
async function unregister(): Promise<void> {
  setTracingEnabled(false);
  await provider?.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
  exporter.reset();
}

afterEach(unregister);

async function drain<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/** 40 requests through the hello agent's router, each under a root span; the spans recorded, as `trace name <- parent name`. */
async function recorded(skip: boolean): Promise<string[]> {
  register(new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0.5) }), 42);
  setTracingEnabled(true, { unsampledParentsHaveUnsampledChildren: skip });
  const { core } = createHelloAgent({ env: {} });
  for (let i = 0; i < 40; i++) await inSpan(`request ${i}`, {}, () => drain(core.openTask('route_to_task', { query: 'two words', contextId: `c${i}` })));
  const spans = exporter.getFinishedSpans();
  const names = new Map(spans.map((span) => [span.spanContext().spanId, span.name]));
  const lines = spans.map((span) => `${span.spanContext().traceId} ${span.name} <- ${names.get(span.parentSpanContext?.spanId ?? '') ?? '-'}`);
  await unregister();
  return lines.sort();
}

describe('work under an unsampled span', () => {
  it('records the same spans, and only under sampled requests, with the skip as without it', async () => {
    const without = await recorded(false);
    const withSkip = await recorded(true);
    expect(withSkip).toEqual(without);
    const requests = without.filter((line) => / request \d+ <- -$/.test(line));
    // Both kinds are there: some requests sampled (with their task and step spans), some not.
    expect(requests.length).toBeGreaterThan(5);
    expect(requests.length).toBeLessThan(35);
    expect(without.length).toBeGreaterThan(requests.length * 4);
  });

  it('gets no span and stays in the unsampled span’s context', async () => {
    register(new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0) }), 7);
    setTracingEnabled(true, { unsampledParentsHaveUnsampledChildren: true });
    let root: Span | undefined;
    let inner: { span: Span; active: Span | undefined } | undefined;
    await inSpan('request', {}, async (span) => {
      root = span;
      await inSpan('child', {}, async (child) => {
        inner = { span: child, active: trace.getActiveSpan() };
      });
    });
    expect(root?.isRecording()).toBe(false);
    expect(root?.spanContext().traceFlags).toBe(TraceFlags.NONE);
    expect(inner?.span).toBe(NO_SPAN);
    expect(inner?.active).toBe(root);
    const items: number[] = [];
    await inSpan('request', {}, async () => {
      for await (const item of spanIterator('stream', {}, () => [1, 2, 3][Symbol.iterator]() as unknown as AsyncIterator<number>)) items.push(item);
    });
    expect(items).toEqual([1, 2, 3]);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('still starts spans under a sampled one', async () => {
    register(new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(1) }), 7);
    setTracingEnabled(true, { unsampledParentsHaveUnsampledChildren: true });
    await inSpan('request', {}, () => inSpan('child', {}, async (child) => expect(child.isRecording()).toBe(true)));
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['child', 'request']);
  });

  it('leaves the children of a remote parent that was not sampled to the sampler', async () => {
    // traceidratio (not parent-based) samples by the trace id, whatever the remote caller decided.
    register(new TraceIdRatioBasedSampler(1), 7);
    setTracingEnabled(true, { unsampledParentsHaveUnsampledChildren: true });
    const remote = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.NONE,
      isRemote: true,
    });
    await context.with(remote, () => inSpan('server', {}, async (span) => expect(span.isRecording()).toBe(true)));
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['server']);
  });
});
