import { FrameworkError } from '../core/framework-error.js';

/** The variable the supervisor sets: where a service also sends its spans for `framework-cli trace` (OTLP/HTTP JSON). */
export const LOCAL_TRACES_VARIABLE = 'FRAMEWORK_TRACES_URL';

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];

/** What a service exports, read from the standard OpenTelemetry variables (and FRAMEWORK_TRACES_URL). */
export interface TelemetryConfig {
  serviceName: string;
  /** The user's OTLP backend, when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set and OTEL_TRACES_EXPORTER is not `none`. */
  otlp?: { protocol: OtlpProtocol };
  /** The stack's local trace receiver (set by `up`). */
  localUrl?: string;
  /**
   * The user's OTLP backend for metrics, when OTEL_EXPORTER_OTLP_(METRICS_)ENDPOINT is set and
   * OTEL_METRICS_EXPORTER is not `none`: the figures of /metrics, every `intervalMs` (OTEL_METRIC_EXPORT_INTERVAL, 60 s by default).
   */
  metrics?: { protocol: OtlpProtocol; intervalMs: number; timeoutMs: number };
}

type OtlpProtocol = 'http/protobuf' | 'http/json';

/**
 * Reads the configuration; undefined when there is nothing to export to (no
 * SDK is then loaded at all). A value that cannot be honoured is an error
 * naming the variable and the values it takes.
 */
export function telemetryConfig(options: { env: Readonly<Record<string, string | undefined>>; defaultServiceName: string }): TelemetryConfig | undefined {
  const env = options.env;
  const set = (name: string) => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  if (set('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const sampler = set('OTEL_TRACES_SAMPLER');
  if (sampler !== undefined && !SAMPLERS.includes(sampler)) {
    throw invalid(`OTEL_TRACES_SAMPLER="${sampler}" is not a sampler this toolkit knows; use one of ${SAMPLERS.join(', ')}.`);
  }
  const exporter = set('OTEL_TRACES_EXPORTER') ?? 'otlp';
  if (exporter !== 'otlp' && exporter !== 'none') throw invalid(`OTEL_TRACES_EXPORTER="${exporter}" is not supported; use otlp (the default) or none.`);
  /** The protocol of a signal's OTLP backend when its endpoint is set (`TRACES` or `METRICS`), checking the endpoint. */
  const otlpProtocol = (signal: 'TRACES' | 'METRICS'): OtlpProtocol | undefined => {
    const specific = `OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`;
    const endpoint = set(specific) ?? set('OTEL_EXPORTER_OTLP_ENDPOINT');
    if (endpoint === undefined) return undefined;
    checkUrl(endpoint, set(specific) ? specific : 'OTEL_EXPORTER_OTLP_ENDPOINT');
    const variable = set(`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`) ? `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL` : 'OTEL_EXPORTER_OTLP_PROTOCOL';
    const protocol = set(variable) ?? 'http/protobuf';
    if (protocol === 'grpc') throw invalid(`${variable}=grpc is not supported by this toolkit; use http/protobuf (the default, port 4318) or http/json.`);
    if (protocol !== 'http/protobuf' && protocol !== 'http/json') throw invalid(`${variable}="${protocol}" is not a protocol; use http/protobuf or http/json.`);
    return protocol;
  };
  const traces = exporter === 'otlp' ? otlpProtocol('TRACES') : undefined;
  const otlp = traces ? { protocol: traces } : undefined;
  const metricsExporter = set('OTEL_METRICS_EXPORTER') ?? 'otlp';
  if (metricsExporter !== 'otlp' && metricsExporter !== 'none')
    throw invalid(`OTEL_METRICS_EXPORTER="${metricsExporter}" is not supported; use otlp (the default) or none (/metrics serves Prometheus text either way).`);
  const metricsProtocol = metricsExporter === 'otlp' ? otlpProtocol('METRICS') : undefined;
  const metrics = metricsProtocol
    ? {
        protocol: metricsProtocol,
        intervalMs: milliseconds(set('OTEL_METRIC_EXPORT_INTERVAL'), 'OTEL_METRIC_EXPORT_INTERVAL', 60_000),
        timeoutMs: milliseconds(set('OTEL_METRIC_EXPORT_TIMEOUT'), 'OTEL_METRIC_EXPORT_TIMEOUT', 30_000),
      }
    : undefined;
  const localUrl = set(LOCAL_TRACES_VARIABLE);
  if (localUrl !== undefined) checkUrl(localUrl, LOCAL_TRACES_VARIABLE);
  if (otlp === undefined && localUrl === undefined && metrics === undefined) return undefined;
  return {
    serviceName: set('OTEL_SERVICE_NAME') ?? options.defaultServiceName,
    ...(otlp ? { otlp } : {}),
    ...(localUrl ? { localUrl } : {}),
    ...(metrics ? { metrics } : {}),
  };
}

function milliseconds(value: string | undefined, variable: string, fallback: number): number {
  if (value === undefined) return fallback;
  const ms = Number(value);
  if (!Number.isSafeInteger(ms) || ms <= 0) throw invalid(`${variable}="${value}" is not a positive number of milliseconds (for example ${fallback}).`);
  return ms;
}

function checkUrl(value: string, variable: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`${variable}="${value}" is not a URL (for example http://127.0.0.1:4318).`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(`${variable}="${value}" must be an http(s) URL.`);
}

function invalid(message: string): FrameworkError {
  return new FrameworkError({ code: 'invalid_config', message });
}
