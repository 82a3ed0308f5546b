import { FrameworkError } from '../core/framework-error.js';

/** The variable the supervisor sets: where a service also sends its spans for `framework-cli trace` (OTLP/HTTP JSON). */
export const LOCAL_TRACES_VARIABLE = 'FRAMEWORK_TRACES_URL';

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];

/** What a service exports, read from the standard OpenTelemetry variables (and FRAMEWORK_TRACES_URL). */
export interface TelemetryConfig {
  serviceName: string;
  /** The user's OTLP backend, when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set and OTEL_TRACES_EXPORTER is not `none`. */
  otlp?: { protocol: 'http/protobuf' | 'http/json' };
  /** The stack's local trace receiver (set by `up`). */
  localUrl?: string;
}

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
  const endpoint = set('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? set('OTEL_EXPORTER_OTLP_ENDPOINT');
  let otlp: TelemetryConfig['otlp'];
  if (endpoint !== undefined && exporter === 'otlp') {
    checkUrl(endpoint, env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT');
    const protocol = set('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? set('OTEL_EXPORTER_OTLP_PROTOCOL') ?? 'http/protobuf';
    if (protocol === 'grpc')
      throw invalid('OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported by this toolkit; use http/protobuf (the default, port 4318) or http/json.');
    if (protocol !== 'http/protobuf' && protocol !== 'http/json')
      throw invalid(`OTEL_EXPORTER_OTLP_PROTOCOL="${protocol}" is not a protocol; use http/protobuf or http/json.`);
    otlp = { protocol };
  }
  const localUrl = set(LOCAL_TRACES_VARIABLE);
  if (localUrl !== undefined) checkUrl(localUrl, LOCAL_TRACES_VARIABLE);
  if (otlp === undefined && localUrl === undefined) return undefined;
  return { serviceName: set('OTEL_SERVICE_NAME') ?? options.defaultServiceName, ...(otlp ? { otlp } : {}), ...(localUrl ? { localUrl } : {}) };
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
