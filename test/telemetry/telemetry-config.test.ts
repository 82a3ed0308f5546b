import { describe, expect, it } from 'vitest';
import { telemetryConfig } from '../../runtime/telemetry/telemetry-config.js';

const read = (env: Record<string, string>) => telemetryConfig({ env, defaultServiceName: 'guardian' });

describe('telemetryConfig', () => {
  it('is undefined with nothing to export to, or with the SDK disabled', () => {
    expect(read({})).toBeUndefined();
    expect(read({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' })).toBeUndefined();
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  });

  it('reads the standard variables: protobuf by default, json on request, the service name over the default', () => {
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({ serviceName: 'guardian', otlp: { protocol: 'http/protobuf' } });
    expect(read({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://x/v1/traces', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'g2' })).toEqual({
      serviceName: 'g2',
      otlp: { protocol: 'http/json' },
    });
    expect(read({ FRAMEWORK_TRACES_URL: 'http://127.0.0.1:5000/v1/traces' })).toEqual({ serviceName: 'guardian', localUrl: 'http://127.0.0.1:5000/v1/traces' });
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
  });
});
