import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import { JsonTraceSerializer, TraceExporterMetricsHelper, type IExportTraceServiceResponse, type ISerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { encodeOtlpJsonTraces } from './otlp-json-trace-encoder.js';

/** The component type the SDK's own OTLP/HTTP span exporter reports in its self-metrics. */
const COMPONENT_TYPE = 'otlp_http_span_exporter';

/**
 * An OTLP/HTTP JSON span exporter: the SDK's own transport, configuration,
 * retries and concurrency limit (`@opentelemetry/otlp-exporter-base`, as in
 * `@opentelemetry/exporter-trace-otlp-http`), with `encodeOtlpJsonTraces`
 * writing the body (the same bytes as the SDK's serializer, a third of the
 * work). `url` and `headers` as the SDK's exporter takes them; left out,
 * the OTEL_EXPORTER_OTLP_(TRACES_)* variables decide, as they do there.
 * Exporters given the same `spanTexts` encode a span they share once.
 *
 * @example
 * new BatchSpanProcessor(createOtlpJsonSpanExporter({})); // to OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces
 */
export function createOtlpJsonSpanExporter(options: {
  url?: string;
  headers?: Record<string, string>;
  spanTexts?: WeakMap<ReadableSpan, string>;
}): SpanExporter {
  const serializer: ISerializer<ReadableSpan[], IExportTraceServiceResponse> = {
    serializeRequest: (spans) => Buffer.from(encodeOtlpJsonTraces(spans, options.spanTexts ? { spanTexts: options.spanTexts } : {}), 'utf8'),
    deserializeResponse: (data) => JsonTraceSerializer.deserializeResponse(data),
  };
  const config = { ...(options.url !== undefined ? { url: options.url } : {}), ...(options.headers !== undefined ? { headers: options.headers } : {}) };
  return new OTLPExporterBase(
    createOtlpHttpExportDelegate(
      convertLegacyHttpOptions(config, 'TRACES', 'v1/traces', { 'Content-Type': 'application/json' }),
      serializer,
      COMPONENT_TYPE,
      TraceExporterMetricsHelper,
      undefined,
    ),
  );
}
