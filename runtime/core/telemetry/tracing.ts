import { createRequire } from 'node:module';
import type * as OpenTelemetryApi from '@opentelemetry/api';
import type { Attributes, Context, Span, SpanKind, Tracer } from '@opentelemetry/api';

/** The instrumentation scope of every span the toolkit makes. */
export const TRACER_NAME = 'framework_core';

/**
 * The OpenTelemetry API, loaded when tracing is first turned on: about 80
 * CommonJS modules that a service with tracing off never needs, and that
 * stayed in its idle memory (issue 40). Required, not imported, so the
 * functions below stay synchronous; it is the copy the SDK's bootstrap loaded
 * (one CommonJS cache), and copies share their providers through the API's
 * global registry anyway.
 */
let api: typeof OpenTelemetryApi | undefined;

/** The OpenTelemetry API (loaded on first call). For instrumentation that runs only while tracing is on. */
export function openTelemetryApi(): typeof OpenTelemetryApi {
  return (api ??= createRequire(import.meta.url)('@opentelemetry/api') as typeof OpenTelemetryApi);
}

/** `SpanKind`'s values (the OpenTelemetry specification's), for code that names a span's kind without loading the API. */
export const SPAN_KIND = { INTERNAL: 0, SERVER: 1, CLIENT: 2 } as const satisfies Record<string, SpanKind>;

let enabled = false;
/** Whether the registered provider's sampler never samples the child of a local parent it did not sample (see `setTracingEnabled`). */
let unsampledParentsHaveUnsampledChildren = false;
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

/**
 * Called by the SDK bootstrap once a tracer provider is registered (and with false when it shuts down).
 *
 * `unsampledParentsHaveUnsampledChildren`: the provider's sampler never samples a span whose parent is a
 * local span it did not sample. True of the six samplers `OTEL_TRACES_SAMPLER` may name here (`always_off`;
 * the `parentbased_*` ones, whose local-parent-not-sampled rule is always off; `traceidratio`, which decides
 * by the trace id, the parent's own), so `startTelemetry` says so; not of every sampler a library user could
 * register. With it, work under an unsampled span starts no span of its own and enters no context: the SDK
 * would hand it a span recording nothing, and entering its context costs a context-manager run (and with it
 * every promise hook). What is recorded and exported is the same; only the span id in an outgoing
 * `traceparent` of an unsampled trace is the unsampled ancestor's.
 */
export function setTracingEnabled(value: boolean, options: { unsampledParentsHaveUnsampledChildren?: boolean } = {}): void {
  if (value) openTelemetryApi();
  enabled = value;
  unsampledParentsHaveUnsampledChildren = value && options.unsampledParentsHaveUnsampledChildren === true;
  tracer = undefined;
}

/** True when a span started under `parent` could only record nothing: its parent is a local span the sampler left out. */
function underUnsampledParent(parent: Context): boolean {
  if (!unsampledParentsHaveUnsampledChildren) return false;
  const { trace, TraceFlags, isSpanContextValid } = openTelemetryApi();
  const span = trace.getSpan(parent);
  if (span === undefined || span.isRecording()) return false;
  const ids = span.spanContext();
  return !ids.isRemote && (ids.traceFlags & TraceFlags.SAMPLED) === 0 && isSpanContextValid(ids);
}

/** The toolkit's tracer (`framework_core`) from the registered provider. */
export function toolkitTracer(): Tracer {
  return (tracer ??= openTelemetryApi().trace.getTracer(TRACER_NAME));
}

/**
 * Starts a span, a child of the span in `parent` (the active context by
 * default), and returns it with the context it is current in. For code that
 * runs its work in `active` itself (`context.with`) where `inSpan` does not fit.
 * Call only while tracing is on.
 *
 * @example
 * const { span, active } = beginSpan('task echo', { attributes });
 * context.with(active, () => work(span));
 */
export function beginSpan(name: string, options: SpanOptions, parent: Context = openTelemetryApi().context.active()): { span: Span; active: Context } {
  if (underUnsampledParent(parent)) return { span: NO_SPAN, active: parent };
  const span = toolkitTracer().startSpan(
    name,
    { kind: options.kind ?? SPAN_KIND.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}) },
    parent,
  );
  return { span, active: openTelemetryApi().trace.setSpan(parent, span) };
}

/** The span context that names no trace (the API's `INVALID_SPAN_CONTEXT`). */
const INVALID_SPAN_CONTEXT = Object.freeze({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 });

/**
 * A span that records nothing: what instrumented code gets while tracing is
 * off. As the API's `NonRecordingSpan` of `INVALID_SPAN_CONTEXT` behaves,
 * without loading the API.
 */
export const NO_SPAN: Span = Object.freeze({
  spanContext: () => INVALID_SPAN_CONTEXT,
  setAttribute: () => NO_SPAN,
  setAttributes: () => NO_SPAN,
  addEvent: () => NO_SPAN,
  addLink: () => NO_SPAN,
  addLinks: () => NO_SPAN,
  setStatus: () => NO_SPAN,
  updateName: () => NO_SPAN,
  end: () => {},
  isRecording: () => false,
  recordException: () => {},
});

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
  const { span, active } = beginSpan(name, options);
  if (span === NO_SPAN) return work(NO_SPAN);
  // Chained with then, not an async function and an await: under the AsyncLocalStorage context
  // manager every promise runs a hook, so each one saved is paid for by every span.
  let running: Promise<T>;
  try {
    running = openTelemetryApi().context.with(active, work, undefined, span);
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
 * fails or is abandoned. The span starts when iteration starts. With tracing
 * off the stream is returned as it is.
 */
export function spanOverStream<T>(name: string, options: SpanOptions, open: (span: Span) => AsyncIterable<T>): AsyncIterable<T> {
  if (!enabled) return open(NO_SPAN);
  return { [Symbol.asyncIterator]: () => spanIterator(name, options, (span) => open(span)[Symbol.asyncIterator]()) };
}

/**
 * Starts a span now and opens an iterator inside it: the span stays current
 * while each item is produced and ends when the iterator ends, fails or is
 * abandoned (`return()`). No async generator in between (each one costs
 * several promises per item, and every promise runs the context manager's
 * hooks): one `then` per item. When `open` throws, the span ends failed and
 * the error is thrown here, at once. Call only while tracing is on.
 *
 * @example
 * const run = spanIterator(`task ${name}`, { attributes }, () => openRun(name));
 */
export function spanIterator<T>(name: string, options: SpanOptions, open: (span: Span) => AsyncIterator<T>): AsyncIterableIterator<T> {
  const { span, active } = beginSpan(name, options);
  if (span === NO_SPAN) return iterableIterator(open(NO_SPAN));
  let inner: AsyncIterator<T>;
  try {
    inner = openTelemetryApi().context.with(active, open, undefined, span);
  } catch (error) {
    failSpan(span, error);
    span.end();
    throw error;
  }
  return new SpanIterator(span, active, inner);
}

/**
 * A span begun now for work that reports its own end (a task run): `call`
 * runs work with the span current, `end` ends it once, failed when given
 * `{ error }`. No promise of its own, where `spanIterator` needs one per item.
 * Call only while tracing is on.
 */
export function spanScope(name: string, options: SpanOptions): { call<R>(work: () => R): R; end(failure?: { error: unknown }): void } {
  const { span, active } = beginSpan(name, options);
  let ended = false;
  return {
    call: span === NO_SPAN ? (work) => work() : (work) => openTelemetryApi().context.with(active, work),
    end: (failure) => {
      if (ended) return;
      ended = true;
      if (failure) failSpan(span, failure.error);
      span.end();
    },
  };
}

/** `inner` as an iterable iterator, its own methods called as they are. */
function iterableIterator<T>(inner: AsyncIterator<T>): AsyncIterableIterator<T> {
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next: () => inner.next(),
    return: async (value?: unknown) => (await inner.return?.(value)) ?? { done: true, value: undefined },
    throw: (error: unknown) => (inner.throw ? inner.throw(error) : Promise.reject(error as Error)),
  };
}

class SpanIterator<T> implements AsyncIterableIterator<T> {
  readonly span: Span;
  readonly active: Context;
  readonly inner: AsyncIterator<T>;
  #ended = false;

  constructor(span: Span, active: Context, inner: AsyncIterator<T>) {
    this.span = span;
    this.active = active;
    this.inner = inner;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    let pending: Promise<IteratorResult<T>>;
    try {
      pending = openTelemetryApi().context.with(this.active, this.inner.next, this.inner);
    } catch (error) {
      return Promise.reject(this.#failed(error));
    }
    return pending.then(this.#settled, (error: unknown) => {
      throw this.#failed(error);
    });
  }

  async return(value?: unknown): Promise<IteratorResult<T>> {
    this.#end();
    return (await this.inner.return?.(value)) ?? { done: true, value: undefined };
  }

  throw(error: unknown): Promise<IteratorResult<T>> {
    this.#failed(error);
    return this.inner.throw ? this.inner.throw(error) : Promise.reject(error as Error);
  }

  readonly #settled = (item: IteratorResult<T>): IteratorResult<T> => {
    if (item.done) this.#end();
    return item;
  };

  #failed(error: unknown): unknown {
    if (!this.#ended) failSpan(this.span, error);
    this.#end();
    return error;
  }

  #end(): void {
    if (!this.#ended) this.span.end();
    this.#ended = true;
  }
}

/** Marks `span` failed with `error` (status, exception event). */
export function failSpan(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: openTelemetryApi().SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** `trace_id` and `span_id` of the active span, for a log line or an audit record; undefined outside a span. */
export function activeTraceIds(): { trace_id: string; span_id: string } | undefined {
  if (!enabled) return undefined;
  const { trace, context, isSpanContextValid } = openTelemetryApi();
  const span = trace.getSpan(context.active());
  if (!span) return undefined;
  const ids = span.spanContext();
  return isSpanContextValid(ids) ? { trace_id: ids.traceId, span_id: ids.spanId } : undefined;
}

/**
 * The W3C `traceparent` value naming `span` (`00-<trace id>-<span id>-<flags>`),
 * as the W3C propagator writes it, without going through the propagators;
 * undefined for a span that names no trace (`NO_SPAN`).
 */
export function traceparentOf(span: Span): string | undefined {
  if (span === NO_SPAN) return undefined;
  const ids = span.spanContext();
  if (!openTelemetryApi().isSpanContextValid(ids)) return undefined;
  return `00-${ids.traceId}-${ids.spanId}-${(ids.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** Sets attributes on the active span (the request's server span, usually); nothing while tracing is off or outside a span. */
export function annotateActiveSpan(attributes: Attributes): void {
  if (!enabled) return;
  const { trace, context } = openTelemetryApi();
  trace.getSpan(context.active())?.setAttributes(attributes);
}

/**
 * `callback` bound to the active context, for a callback that an event
 * emitter calls later (a request body's 'end'), where the context of the
 * request would otherwise be lost. With tracing off, `callback` itself.
 */
export function bindActiveContext<F extends (...args: never[]) => unknown>(callback: F): F {
  if (!enabled) return callback;
  const { context } = openTelemetryApi();
  const active = context.active();
  // Not `context.bind`: its wrapper also redefines the function's `length` (Object.defineProperty), per request.
  const run = callback as unknown as (...args: unknown[]) => unknown;
  return function (this: unknown, ...args: unknown[]) {
    return context.with(active, run, this, ...args);
  } as unknown as F;
}
