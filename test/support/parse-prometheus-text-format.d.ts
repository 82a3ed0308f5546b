declare module 'parse-prometheus-text-format' {
  /** One metric family of a Prometheus text exposition. */
  export interface MetricFamily {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: { value?: string; labels?: Record<string, string>; buckets?: Record<string, string>; count?: string; sum?: string }[];
  }
  /** Parses Prometheus text format; throws on malformed input. */
  export default function parsePrometheusTextFormat(text: string): MetricFamily[];
}
