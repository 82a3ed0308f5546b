import {
  context,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type Tracer,
} from '@opentelemetry/api';

/** The instrumentation scope of every span the toolkit makes. */
export const TRACER_NAME = 'framework_core';

let enabled = false;
/** The toolkit's tracer, looked up once per registered provider (the provider's lookup builds a key string and a map lookup per call). */
let tracer: Tracer | undefined;

/**
 * True once an SDK is registered (`startTelemetry` in the services the CLI
 * starts). Until then the instrumentation skips its span work altogether, so a
 * library user with no OpenTelemetry set up pays a flag check per request.
 */
export function tracingEnabled(): boolean {
  return enabled;
}

/** Called by the SDK bootstrap once a tracer provider is registered (and with false when it shuts down). */
export function setTracingEnabled(value: boolean): void {
  enabled = value;
  tracer = undefined;
}

/** The toolkit's tracer (`framework_core`) from the registered provider. */
export function toolkitTracer(): Tracer {
  return (tracer ??= trace.getTracer(TRACER_NAME));
}

function startSpan(name: string, options: SpanOptions): Span {
  return toolkitTracer().startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}) });
}

/** A span that records nothing: what instrumented code gets while tracing is off. */
export const NO_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
}

/**
 * Runs `work` inside a new span (a child of the active one), ending it when
 * `work` settles: an exception sets the span's status to error, records it and
 * is rethrown. With tracing off, `work` runs with `NO_SPAN` and nothing else.
 *
 * @example
 * const answer = await inSpan('guardian.validate', { attributes: { 'a2a.method': method } }, (span) => validate(span));
 */
export function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  if (!enabled) return work(NO_SPAN);
  const span = startSpan(name, options);
  // Chained with then, not an async function and an await: under the AsyncLocalStorage context
  // manager every promise runs a hook, so each one saved is paid for by every span.
  let running: Promise<T>;
  try {
    running = context.with(trace.setSpan(context.active(), span), work, undefined, span);
  } catch (error) {
    failSpan(span, error);
    span.end();
    return Promise.reject(error as Error);
  }
  return Promise.resolve(running).then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      failSpan(span, error);
      span.end();
      throw error;
    },
  );
}

/**
 * Wraps a stream in a span that stays current while each item is produced
 * (so the work behind `next()` is its child) and ends when the stream ends,
 * fails or is abandoned. With tracing off the stream is returned as it is.
 */
export function spanOverStream<T>(name: string, options: SpanOptions, open: (span: Span) => AsyncIterable<T>): AsyncIterable<T> {
  if (!enabled) return open(NO_SPAN);
  return {
    [Symbol.asyncIterator]: () => {
      const span = startSpan(name, options);
      const active = trace.setSpan(context.active(), span);
      const inner = context.with(active, () => open(span)[Symbol.asyncIterator]());
      let ended = false;
      const end = () => {
        if (!ended) span.end();
        ended = true;
      };
      const settled = (item: IteratorResult<T>) => {
        if (item.done) end();
        return item;
      };
      const failed = (error: unknown): never => {
        failSpan(span, error);
        end();
        throw error;
      };
      return {
        // One then per item (no async wrapper, no await): see inSpan.
        next: () => {
          try {
            return context.with(active, () => inner.next()).then(settled, failed);
          } catch (error) {
            return Promise.reject(error as Error).catch(failed);
          }
        },
        return: async (value?: unknown) => {
          end();
          return (await inner.return?.(value)) ?? { done: true, value: undefined };
        },
      } as AsyncIterator<T>;
    },
  };
}

/** Marks `span` failed with `error` (status, exception event). */
export function failSpan(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** `trace_id` and `span_id` of the active span, for a log line or an audit record; undefined outside a span. */
export function activeTraceIds(): { trace_id: string; span_id: string } | undefined {
  if (!enabled) return undefined;
  const span = trace.getSpan(context.active());
  if (!span) return undefined;
  const ids = span.spanContext();
  return isSpanContextValid(ids) ? { trace_id: ids.traceId, span_id: ids.spanId } : undefined;
}

/** Sets attributes on the active span (the request's server span, usually); nothing while tracing is off or outside a span. */
export function annotateActiveSpan(attributes: Attributes): void {
  if (!enabled) return;
  trace.getSpan(context.active())?.setAttributes(attributes);
}

/**
 * `callback` bound to the active context, for a callback that an event
 * emitter calls later (a request body's 'end'), where the context of the
 * request would otherwise be lost. With tracing off, `callback` itself.
 */
export function bindActiveContext<F extends (...args: never[]) => unknown>(callback: F): F {
  return enabled ? context.bind(context.active(), callback) : callback;
}
