/** Finished spans from the real OpenTelemetry SDK for the telemetry tests, and an export as a promise. */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { afterAll, beforeAll } from 'vitest';
import { inSpan, setTracingEnabled } from '../../runtime/core/telemetry/tracing.js';

/** Hands each ended span to `exporter` at once, as SimpleSpanProcessor does but without its promises (which tests counting promises would include). */
export function exportingAtOnce(exporter: SpanExporter): SpanProcessor {
  return {
    onStart: () => undefined,
    onEnd: (span) => exporter.export([span], () => undefined),
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
}

export function exportWith(exporter: SpanExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

/** Finished spans from the real SDK, one with NaN and ±Infinity attributes among good ones. */
export function spansWithNaN(): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'nan-svc' }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer('test');
  const parent = tracer.startSpan('score', {
    kind: SpanKind.SERVER,
    attributes: { 'score.value': Number.NaN, 'score.max': Number.POSITIVE_INFINITY, 'score.name': 'cosine', 'score.k': 5, 'score.ratio': 0.5 },
  });
  parent.addEvent('scored', { nan: Number.NaN, ok: 'yes' });
  parent.setStatus({ code: SpanStatusCode.OK });
  tracer.startSpan('child', { attributes: { list: [1, Number.NaN, 3] } }, trace.setSpan(ROOT_CONTEXT, parent)).end();
  parent.end();
  return memory.getFinishedSpans();
}

/**
 * Tracing on for the test file's `describe` block, set up as `startTelemetry`
 * sets it (a registered provider, `fetch` instrumented for calls made within a
 * span); the result runs a call within a span, where the clients take their
 * traced path (Node's instrumented `fetch`).
 */
export function tracingOnInSpans(): <T>(call: () => Promise<T>) => Promise<T> {
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] });
  const undici = new UndiciInstrumentation({ requireParentforSpans: true });
  beforeAll(() => {
    provider.register();
    undici.enable();
    setTracingEnabled(true);
  });
  afterAll(async () => {
    setTracingEnabled(false);
    undici.disable();
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });
  return (call) => inSpan('test', {}, call);
}
