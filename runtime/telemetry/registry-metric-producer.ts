import { ValueType, type Attributes, type HrTime } from '@opentelemetry/api';
import { millisToHrTime } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import { AggregationTemporality, DataPointType, type CollectionResult, type MetricData, type MetricProducer } from '@opentelemetry/sdk-metrics';
import type { MetricFamily, MetricSample } from '../core/telemetry/service-metrics.js';
import { TRACER_NAME } from '../core/telemetry/tracing.js';

/**
 * The metric families of this process (what `GET /metrics` serves) as
 * OpenTelemetry metric data, for the SDK's metric reader to export over OTLP:
 * one source for both, so a backend and a scraper see the same figures.
 * Counters become cumulative monotonic sums, gauges gauges, histograms
 * explicit-bucket histograms (Prometheus's cumulative `le` buckets turned
 * into per-bucket counts). Names and labels are kept as they are.
 */
export class RegistryMetricProducer implements MetricProducer {
  readonly #families: () => Promise<readonly MetricFamily[]>;
  readonly #resource: Resource;
  /** Prometheus counters count from the start of the process. */
  readonly #startTime: HrTime = millisToHrTime(performance.timeOrigin);

  constructor(options: { families: () => Promise<readonly MetricFamily[]>; resource: Resource }) {
    this.#families = options.families;
    this.#resource = options.resource;
  }

  async collect(): Promise<CollectionResult> {
    const errors: unknown[] = [];
    const metrics: MetricData[] = [];
    const endTime = millisToHrTime(Date.now());
    let families: readonly MetricFamily[] = [];
    try {
      families = await this.#families();
    } catch (error) {
      errors.push(error);
    }
    for (const family of families) {
      const data = this.#convert(family, endTime);
      if (data) metrics.push(data);
    }
    return { resourceMetrics: { resource: this.#resource, scopeMetrics: [{ scope: { name: TRACER_NAME }, metrics }] }, errors };
  }

  #convert(family: MetricFamily, endTime: HrTime): MetricData | undefined {
    const descriptor = { name: family.name, description: family.help, unit: family.name.endsWith('_seconds') ? 's' : '', valueType: ValueType.DOUBLE };
    const point = <T>(attributes: Attributes, value: T) => ({ startTime: this.#startTime, endTime, attributes, value });
    switch (String(family.type)) {
      case 'counter':
        return {
          descriptor,
          aggregationTemporality: AggregationTemporality.CUMULATIVE,
          dataPointType: DataPointType.SUM,
          isMonotonic: true,
          dataPoints: family.values.map((value) => point(value.labels, value.value)),
        };
      case 'gauge':
        return {
          descriptor,
          aggregationTemporality: AggregationTemporality.CUMULATIVE,
          dataPointType: DataPointType.GAUGE,
          dataPoints: family.values.map((value) => point(value.labels, value.value)),
        };
      case 'histogram':
        return {
          descriptor,
          aggregationTemporality: AggregationTemporality.CUMULATIVE,
          dataPointType: DataPointType.HISTOGRAM,
          dataPoints: histogramPoints(family.name, family.values).map(({ attributes, value }) => point(attributes, value)),
        };
      default:
        // Summaries: none of the toolkit's metrics is one.
        return undefined;
    }
  }
}

/** A histogram family's series (`_bucket` with `le`, `_sum`, `_count`) grouped by label set into per-bucket counts. */
function histogramPoints(
  name: string,
  values: readonly MetricSample[],
): { attributes: Attributes; value: { buckets: { boundaries: number[]; counts: number[] }; sum: number; count: number } }[] {
  const series = new Map<string, { attributes: Attributes; buckets: [number, number][]; sum: number; count: number }>();
  for (const value of values) {
    const { le, ...labels } = value.labels;
    const key = JSON.stringify(Object.entries(labels).sort());
    let entry = series.get(key);
    if (entry === undefined) series.set(key, (entry = { attributes: labels, buckets: [], sum: 0, count: 0 }));
    if (value.metricName === `${name}_bucket`) entry.buckets.push([le === '+Inf' ? Infinity : Number(le), value.value]);
    else if (value.metricName === `${name}_sum`) entry.sum = value.value;
    else if (value.metricName === `${name}_count`) entry.count = value.value;
  }
  return [...series.values()].map(({ attributes, buckets, sum, count }) => {
    buckets.sort(([a], [b]) => a - b);
    const boundaries = buckets.filter(([bound]) => bound !== Infinity).map(([bound]) => bound);
    // Prometheus buckets are cumulative (`le`); OTLP's count each bucket alone, the last one above the highest boundary.
    const counts = boundaries.map((_, i) => buckets[i]![1] - (i === 0 ? 0 : buckets[i - 1]![1]));
    counts.push(count - (boundaries.length === 0 ? 0 : buckets[boundaries.length - 1]![1]));
    return { attributes, value: { buckets: { boundaries, counts }, sum, count } };
  });
}
