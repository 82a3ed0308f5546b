import { describe, expect, it } from 'vitest';
import { telemetryConfig } from '../../runtime/telemetry/telemetry-config.js';

const read = (env: Record<string, string>) => telemetryConfig({ env, defaultServiceName: 'guardian' });

describe('telemetryConfig', () => {
  it('is undefined with nothing to export to, or with the SDK disabled', () => {
    expect(read({})).toBeUndefined();
    expect(read({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' })).toBeUndefined();
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none' })).toBeUndefined();
    expect(read({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_METRIC_EXPORT_INTERVAL: '1000' })).toBeUndefined();
  });

  it('reads the standard variables: protobuf by default, json on request, the service name over the default', () => {
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      serviceName: 'guardian',
      otlp: { protocol: 'http/protobuf' },
      metrics: { protocol: 'http/protobuf', intervalMs: 60_000, timeoutMs: 30_000 },
    });
    expect(read({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://x/v1/traces', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'g2' })).toEqual({
      serviceName: 'g2',
      otlp: { protocol: 'http/json' },
    });
    expect(read({ FRAMEWORK_TRACES_URL: 'http://127.0.0.1:5000/v1/traces' })).toEqual({ serviceName: 'guardian', localUrl: 'http://127.0.0.1:5000/v1/traces' });
  });

  it('exports metrics when an endpoint is set and OTEL_METRICS_EXPORTER is not none, with their own protocol and interval', () => {
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none', OTEL_METRIC_EXPORT_INTERVAL: '5000' })).toEqual({
      serviceName: 'guardian',
      metrics: { protocol: 'http/protobuf', intervalMs: 5_000, timeoutMs: 30_000 },
    });
    expect(
      read({
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://c:4318/v1/metrics',
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
        OTEL_METRIC_EXPORT_TIMEOUT: '2000',
      }),
    ).toEqual({ serviceName: 'guardian', metrics: { protocol: 'http/json', intervalMs: 60_000, timeoutMs: 2_000 } });
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_METRICS_EXPORTER: 'none' })).toEqual({
      serviceName: 'guardian',
      otlp: { protocol: 'http/protobuf' },
    });
  });

  it('refuses what it cannot honour, naming the variable and the values it takes', () => {
    expect(() => read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/grpc is not supported.*http\/protobuf/);
    expect(() => read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL="thrift"/);
    expect(() => read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT="collector:4318" (is not a URL|must be an http)/,
    );
    expect(() => read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT="not a url" is not a URL/);
    expect(() => read({ OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/OTEL_TRACES_SAMPLER="sometimes".*parentbased_always_on/);
    expect(() => read({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER="zipkin" is not supported/);
    expect(() => read({ FRAMEWORK_TRACES_URL: 'file:///tmp/x' })).toThrow(/FRAMEWORK_TRACES_URL.*http\(s\)/);
    expect(() => read({ OTEL_METRICS_EXPORTER: 'prometheus' })).toThrow(/OTEL_METRICS_EXPORTER="prometheus" is not supported/);
    expect(() => read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_METRICS_PROTOCOL=grpc is not supported/,
    );
    expect(() => read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_METRIC_EXPORT_INTERVAL: 'soon' })).toThrow(
      /OTEL_METRIC_EXPORT_INTERVAL="soon" is not a positive number of milliseconds/,
    );
  });
});
