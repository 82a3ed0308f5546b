import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

/**
 * The part of opentelemetry-proto's trace service request a test reads, with
 * the field numbers of the official `.proto` files
 * (opentelemetry/proto/collector/trace/v1, trace/v1, common/v1, resource/v1).
 */
const OTLP_TRACE_PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { repeated Span spans = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; bytes parent_span_id = 4; string name = 5; int32 kind = 6;
  fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8; repeated KeyValue attributes = 9;
  repeated Event events = 11; Status status = 15;
}
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; }
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; } }
`;

const RequestType = protobuf.parse(OTLP_TRACE_PROTO, { keepCase: true }).root.lookupType('otlp.ExportTraceServiceRequest');

/** The part of the metrics service request a test reads (opentelemetry/proto/collector/metrics/v1, metrics/v1). */
const OTLP_METRICS_PROTO = `
syntax = "proto3";
package otlpm;
message ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
message ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeMetrics { repeated Metric metrics = 2; }
message Metric { string name = 1; string description = 2; string unit = 3; Gauge gauge = 5; Sum sum = 7; Histogram histogram = 9; }
message Gauge { repeated NumberDataPoint data_points = 1; }
message Sum { repeated NumberDataPoint data_points = 1; int32 aggregation_temporality = 2; bool is_monotonic = 3; }
message Histogram { repeated HistogramDataPoint data_points = 1; int32 aggregation_temporality = 2; }
message NumberDataPoint { repeated KeyValue attributes = 7; double as_double = 4; sfixed64 as_int = 6; }
message HistogramDataPoint { repeated KeyValue attributes = 9; fixed64 count = 4; double sum = 5; repeated fixed64 bucket_counts = 6; repeated double explicit_bounds = 7; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; } }
`;

const MetricsRequestType = protobuf.parse(OTLP_METRICS_PROTO, { keepCase: true }).root.lookupType('otlpm.ExportMetricsServiceRequest');

/** One data point of a metric as the test receiver decoded it (the latest export wins). */
export interface ReceivedMetricPoint {
  service: string;
  name: string;
  type: 'gauge' | 'sum' | 'histogram';
  attributes: Record<string, string | number | boolean>;
  /** Gauges and sums: the value; histograms: the count. */
  value: number;
  /** Histograms: per-bucket counts and their upper bounds (the last bucket has none). */
  bucketCounts?: number[];
  bounds?: number[];
  sum?: number;
}

interface DecodedMetrics {
  resource_metrics?: {
    resource?: { attributes?: KeyValue[] };
    scope_metrics?: {
      metrics?: {
        name: string;
        gauge?: { data_points?: NumberPoint[] };
        sum?: { data_points?: NumberPoint[] };
        histogram?: { data_points?: { attributes?: KeyValue[]; count?: Long; sum?: number; bucket_counts?: Long[]; explicit_bounds?: number[] }[] };
      }[];
    }[];
  }[];
}
type Long = number | { toNumber(): number };
interface NumberPoint {
  attributes?: KeyValue[];
  as_double?: number;
  as_int?: Long;
}
const num = (value: Long | undefined) => (value === undefined ? 0 : typeof value === 'number' ? value : value.toNumber());

/** A span as the test receiver decoded it. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  events: string[];
}

interface Decoded {
  resource_spans?: {
    resource?: { attributes?: KeyValue[] };
    scope_spans?: {
      spans?: {
        trace_id: Uint8Array;
        span_id: Uint8Array;
        parent_span_id?: Uint8Array;
        name: string;
        kind: number;
        attributes?: KeyValue[];
        events?: { name: string }[];
      }[];
    }[];
  }[];
}
interface KeyValue {
  key: string;
  value?: { string_value?: string; bool_value?: boolean; int_value?: number | { toNumber(): number }; double_value?: number };
}

/** An OTLP/HTTP protobuf receiver of traces and metrics on a free loopback port: what the services send with OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf. */
export class OtlpProtobufReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Every metric data point received, in order: the last one of a series is its latest figure. */
  readonly metricPoints: ReceivedMetricPoint[] = [];
  /** Requests that were not OTLP protobuf trace exports. */
  readonly refused: string[] = [];
  #server?: Server;
  url = '';

  async start(): Promise<void> {
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url === '/v1/traces' || request.url === '/v1/metrics' ? request.url : undefined;
        if (request.method !== 'POST' || path === undefined || request.headers['content-type'] !== 'application/x-protobuf') {
          this.refused.push(`${request.method} ${request.url} ${request.headers['content-type']}`);
          response.writeHead(400).end();
          return;
        }
        if (path === '/v1/traces') this.#take(RequestType.toObject(RequestType.decode(Buffer.concat(chunks)), { defaults: false }) as Decoded);
        else this.#takeMetrics(MetricsRequestType.toObject(MetricsRequestType.decode(Buffer.concat(chunks)), { defaults: false }) as DecodedMetrics);
        response.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }

  /** The spans of one trace received so far. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  /** The latest figure of each series of metric `name` from `service`. */
  latestPoints(service: string, name: string): ReceivedMetricPoint[] {
    const latest = new Map<string, ReceivedMetricPoint>();
    for (const point of this.metricPoints) {
      if (point.service === service && point.name === name) latest.set(JSON.stringify(Object.entries(point.attributes).sort()), point);
    }
    return [...latest.values()];
  }

  #takeMetrics(request: DecodedMetrics): void {
    for (const resourceMetrics of request.resource_metrics ?? []) {
      const service = String(attributes(resourceMetrics.resource?.attributes)['service.name']);
      for (const scope of resourceMetrics.scope_metrics ?? []) {
        for (const metric of scope.metrics ?? []) {
          const numbers = metric.gauge ? ('gauge' as const) : metric.sum ? ('sum' as const) : undefined;
          if (numbers) {
            for (const point of metric[numbers]!.data_points ?? []) {
              const value = point.as_double ?? num(point.as_int);
              this.metricPoints.push({ service, name: metric.name, type: numbers, attributes: attributes(point.attributes), value });
            }
          }
          for (const point of metric.histogram?.data_points ?? []) {
            this.metricPoints.push({
              service,
              name: metric.name,
              type: 'histogram',
              attributes: attributes(point.attributes),
              value: num(point.count),
              bucketCounts: (point.bucket_counts ?? []).map(num),
              bounds: point.explicit_bounds ?? [],
              sum: point.sum ?? 0,
            });
          }
        }
      }
    }
  }

  #take(request: Decoded): void {
    for (const resourceSpans of request.resource_spans ?? []) {
      const resource = attributes(resourceSpans.resource?.attributes);
      for (const scope of resourceSpans.scope_spans ?? []) {
        for (const span of scope.spans ?? []) {
          const parent = span.parent_span_id && span.parent_span_id.length > 0 ? Buffer.from(span.parent_span_id).toString('hex') : undefined;
          this.spans.push({
            service: String(resource['service.name']),
            traceId: Buffer.from(span.trace_id).toString('hex'),
            spanId: Buffer.from(span.span_id).toString('hex'),
            parentSpanId: parent,
            name: span.name,
            kind: span.kind ?? 0,
            attributes: attributes(span.attributes),
            events: (span.events ?? []).map((event) => event.name),
          });
        }
      }
    }
  }
}

function attributes(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    if (!value) continue;
    if (value.string_value !== undefined) out[key] = value.string_value;
    else if (value.bool_value !== undefined) out[key] = value.bool_value;
    else if (value.int_value !== undefined) out[key] = typeof value.int_value === 'number' ? value.int_value : value.int_value.toNumber();
    else if (value.double_value !== undefined) out[key] = value.double_value;
  }
  return out;
}
