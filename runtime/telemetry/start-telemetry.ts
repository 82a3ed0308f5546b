import { serviceMetricFamilies } from '../core/telemetry/service-metrics.js';
import { setTracingEnabled } from '../core/telemetry/tracing.js';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { telemetryConfig, type TelemetryConfig } from './telemetry-config.js';

/** A started SDK: `shutdown()` flushes the spans not yet sent and stops exporting. */
export interface Telemetry {
  readonly config: TelemetryConfig;
  shutdown(): Promise<void>;
}

let running: Telemetry | undefined;

/** How often spans go to the local receiver: soon enough for `framework-cli trace` right after a request. */
const LOCAL_EXPORT_DELAY_MS = 500;

/**
 * Starts OpenTelemetry tracing in a service when there is somewhere to send
 * spans (the user's OTLP backend from the standard OTEL_* variables, and/or
 * the stack's local receiver that `up` names in FRAMEWORK_TRACES_URL), and
 * OTLP export of its metrics when a metrics endpoint is set.
 * With none, returns undefined having loaded no SDK: the toolkit's spans
 * stay the API's no-ops. The SDK is imported here, on demand, so a process
 * that never traces never loads it. Registers the W3C trace-context
 * propagator and instruments `fetch` (HTTP client spans, `traceparent` on
 * every outgoing call made within a span).
 *
 * @example
 * await startTelemetry({ env: process.env, defaultServiceName: 'guardian' });
 */
export async function startTelemetry(options: {
  env: Readonly<Record<string, string | undefined>>;
  defaultServiceName: string;
}): Promise<Telemetry | undefined> {
  if (running) return running;
  const config = telemetryConfig(options);
  if (config === undefined) return undefined;
  const resources = await import('@opentelemetry/resources');
  // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME (the env detector) win over the toolkit's default name.
  const resource = resources
    .resourceFromAttributes({ 'service.name': config.serviceName })
    .merge(await resources.detectResources({ detectors: [resources.envDetector] }));
  const stops: (() => Promise<void>)[] = [];
  if (config.otlp || config.localUrl) stops.push(await startTracing(config, resource));
  if (config.metrics) stops.push(await startMetricsExport(config.metrics, resource));
  let stopping: Promise<void> | undefined;
  running = {
    config,
    shutdown: () =>
      (stopping ??= (async () => {
        const stopped = await Promise.allSettled(stops.map((stop) => stop()));
        running = undefined;
        reportLostExports(stopped);
      })()),
  };
  return running;
}

/**
 * A backend that cannot be reached when the process stops loses the last
 * spans and figures: said on standard error (the service's log), never a
 * failure of the stop itself (a service stopped while its collector is down
 * exited 1 with the exporter's `connect ECONNREFUSED`, as if it had crashed).
 */
function reportLostExports(stopped: PromiseSettledResult<void>[]): void {
  const reasons = stopped.flatMap((result) => (result.status === 'rejected' ? [messageOf(result.reason)] : []));
  if (reasons.length === 0) return;
  process.stderr.write(`telemetry: the last spans or metrics could not be sent when stopping (${reasons.join('; ')}); they are lost\n`);
}

function messageOf(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

/** Registers the tracer provider and the fetch instrumentation; returns what stops them. */
async function startTracing(config: TelemetryConfig, resource: Resource): Promise<() => Promise<void>> {
  const [{ NodeTracerProvider }, { BatchSpanProcessor }, { UndiciInstrumentation }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/instrumentation-undici'),
  ]);
  const spanProcessors = [];
  const json = config.otlp?.protocol === 'http/json' || config.localUrl ? await import('./otlp-json-span-exporter.js') : undefined;
  // With both a JSON backend and the local receiver, each span is encoded once for the two (each keeps its own queue).
  const spanTexts = config.otlp?.protocol === 'http/json' && config.localUrl ? new WeakMap<ReadableSpan, string>() : undefined;
  if (config.otlp) {
    // The exporters read the endpoint, headers, timeout and compression from the OTEL_EXPORTER_OTLP_* variables themselves.
    const exporter =
      config.otlp.protocol === 'http/json'
        ? json!.createOtlpJsonSpanExporter({ ...(spanTexts ? { spanTexts } : {}) })
        : new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
    spanProcessors.push(new BatchSpanProcessor(exporter));
  }
  if (config.localUrl) {
    const exporter = json!.createOtlpJsonSpanExporter({ url: config.localUrl, headers: {}, ...(spanTexts ? { spanTexts } : {}) });
    spanProcessors.push(new BatchSpanProcessor(exporter, { scheduledDelayMillis: LOCAL_EXPORT_DELAY_MS }));
  }
  const provider = new NodeTracerProvider({ resource, spanProcessors });
  // The W3C trace-context and baggage propagators and the AsyncLocalStorage context manager.
  provider.register();
  // Only calls made within a span are traced: background polls (bundle followers, health probes) would each start a trace of their own.
  const undici = new UndiciInstrumentation({ requireParentforSpans: true });
  undici.enable();
  // The SDK reads OTEL_TRACES_SAMPLER itself, and telemetryConfig has let through only the six samplers that
  // never sample the child of a local span they left out: work under such a span can skip its own spans.
  setTracingEnabled(true, { unsampledParentsHaveUnsampledChildren: true });
  return async () => {
    setTracingEnabled(false);
    undici.disable();
    await provider.shutdown();
  };
}

/**
 * Exports this process's /metrics figures over OTLP every `intervalMs`: the
 * SDK's periodic reader with the official OTLP metrics exporter of the
 * configured protocol, reading this process's metric families through
 * `RegistryMetricProducer` (the counters and histograms are the ones /metrics
 * serves; nothing is recorded twice). The last figures go out on shutdown.
 */
async function startMetricsExport(metrics: NonNullable<TelemetryConfig['metrics']>, resource: Resource): Promise<() => Promise<void>> {
  const [{ MeterProvider, PeriodicExportingMetricReader }, { RegistryMetricProducer }] = await Promise.all([
    import('@opentelemetry/sdk-metrics'),
    import('./registry-metric-producer.js'),
  ]);
  const { OTLPMetricExporter } =
    metrics.protocol === 'http/json' ? await import('@opentelemetry/exporter-metrics-otlp-http') : await import('@opentelemetry/exporter-metrics-otlp-proto');
  // The exporter reads the endpoint, headers, timeout, compression and temporality preference from the OTEL_EXPORTER_OTLP_* variables.
  const reader = new PeriodicExportingMetricReader({
    exporter: new OTLPMetricExporter(),
    exportIntervalMillis: metrics.intervalMs,
    exportTimeoutMillis: Math.min(metrics.timeoutMs, metrics.intervalMs),
    metricProducers: [new RegistryMetricProducer({ families: serviceMetricFamilies, resource })],
  });
  const provider = new MeterProvider({ resource, readers: [reader] });
  return () => provider.shutdown();
}

/** Flushes and stops the SDK started by `startTelemetry`, if any. */
export async function shutdownTelemetry(): Promise<void> {
  await running?.shutdown();
}
