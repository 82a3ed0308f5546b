/**
 * While tracing is off, the toolkit's instrumentation runs without loading the
 * OpenTelemetry API (idle memory, issue 40): its own no-op span and span kinds
 * must be what the API's would be.
 */
import { INVALID_SPAN_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { inSpan, NO_SPAN, SPAN_KIND, traceparentOf } from '../../../runtime/core/telemetry/tracing.js';

describe('tracing without the OpenTelemetry API', () => {
  it('names span kinds with the API’s values', () => {
    expect(SPAN_KIND).toEqual({ INTERNAL: SpanKind.INTERNAL, SERVER: SpanKind.SERVER, CLIENT: SpanKind.CLIENT });
  });

  it('NO_SPAN behaves as the API’s span of the invalid span context', () => {
    const api = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    expect(NO_SPAN.spanContext()).toEqual(api.spanContext());
    expect(NO_SPAN.isRecording()).toBe(api.isRecording());
    // Each setter returns the span, as the API's do (callers chain them).
    expect(NO_SPAN.setAttribute('a', 1).setAttributes({ b: 2 }).addEvent('e').setStatus({ code: 2 }).updateName('n')).toBe(NO_SPAN);
    expect(() => {
      NO_SPAN.recordException(new Error('x'));
      NO_SPAN.end();
    }).not.toThrow();
    expect(traceparentOf(NO_SPAN)).toBeUndefined();
  });

  it('runs work with NO_SPAN while tracing is off', async () => {
    expect(await inSpan('work', { kind: SPAN_KIND.CLIENT }, async (span) => span)).toBe(NO_SPAN);
  });
});
