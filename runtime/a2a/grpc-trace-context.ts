import * as grpc from '@grpc/grpc-js';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';
import { toolkitTracer, tracingEnabled } from '../core/telemetry/tracing.js';

/** The RPC semantic conventions' attribute names (incubating in @opentelemetry/semantic-conventions, hence spelled here). */
const RPC_SYSTEM_NAME = 'rpc.system.name';
const RPC_METHOD = 'rpc.method';
const RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code';

/** W3C `traceparent`/`tracestate` into a call's metadata (gRPC metadata keys are lower-case, as the W3C headers are). */
const metadataSetter: TextMapSetter<grpc.Metadata> = {
  set: (metadata, key, value) => metadata.set(key, value),
};

/** ...and out of it. Binary (`-bin`) values are not text and never carry trace context. */
const metadataGetter: TextMapGetter<grpc.Metadata> = {
  keys: (metadata) => Object.keys(metadata.getMap()),
  get: (metadata, key) => {
    const values = metadata.get(key).filter((value): value is string => typeof value === 'string');
    return values.length === 0 ? undefined : values.length === 1 ? values[0] : values;
  },
};

/** `lf.a2a.v1.A2AService/SendMessage` of the path `/lf.a2a.v1.A2AService/SendMessage`: the RPC span's name and `rpc.method`. */
function rpcName(path: string): string {
  return path.startsWith('/') ? path.slice(1) : path;
}

/**
 * A gRPC client interceptor that traces each call: a CLIENT span (a child of
 * the active span) named after the RPC, whose W3C trace context is sent as
 * `traceparent`/`tracestate` metadata through the registered propagator, so
 * the server's span is its child. It ends with the call's status. With
 * tracing off (or outside any span), the call passes through untouched.
 *
 * Put it before the signing interceptor: the signature covers the message,
 * not the trace metadata.
 */
export function traceContextInterceptor(): grpc.Interceptor {
  return (callOptions, nextCall) => {
    if (!tracingEnabled() || trace.getSpan(context.active()) === undefined) return new grpc.InterceptingCall(nextCall(callOptions));
    const name = rpcName(callOptions.method_definition.path);
    const span = toolkitTracer().startSpan(name, { kind: SpanKind.CLIENT, attributes: { [RPC_SYSTEM_NAME]: 'grpc', [RPC_METHOD]: name } });
    const active = trace.setSpan(context.active(), span);
    return new grpc.InterceptingCall(nextCall(callOptions), {
      // The listener given to `next` wraps the caller's: its `nextStatus` hands the status on.
      start(metadata, _listener, next) {
        propagation.inject(active, metadata, metadataSetter);
        next(metadata, {
          onReceiveStatus(status, nextStatus) {
            endRpcSpan(span, status.code, status.details);
            nextStatus(status);
          },
        });
      },
    });
  };
}

/**
 * Runs a server handler within a SERVER span for the RPC at `path`, continuing
 * the caller's W3C trace context from the call's metadata. `serve` gets
 * `end(code, details)` to call once the call's status is known. With tracing
 * off, `serve` runs as it is and `end` does nothing.
 */
export function inServerRpcSpan(path: string, metadata: grpc.Metadata, serve: (end: (code: grpc.status, details?: string) => void) => void): void {
  if (!tracingEnabled()) {
    serve(() => undefined);
    return;
  }
  const parent = propagation.extract(ROOT_CONTEXT, metadata, metadataGetter);
  const name = rpcName(path);
  const span = toolkitTracer().startSpan(name, { kind: SpanKind.SERVER, attributes: { [RPC_SYSTEM_NAME]: 'grpc', [RPC_METHOD]: name } }, parent);
  let ended = false;
  const end = (code: grpc.status, details?: string) => {
    if (ended) return;
    ended = true;
    endRpcSpan(span, code, details);
  };
  context.with(trace.setSpan(parent, span), () => serve(end));
}

function endRpcSpan(span: Span, code: grpc.status, details: string | undefined): void {
  span.setAttribute(RPC_RESPONSE_STATUS_CODE, grpc.status[code] ?? String(code));
  if (code !== grpc.status.OK) span.setStatus({ code: SpanStatusCode.ERROR, ...(details ? { message: details } : {}) });
  span.end();
}
