/**
 * A histogram of durations by three labels, kept in plain arrays and written
 * as Prometheus text (as prom-client writes it) when /metrics is scraped.
 * prom-client's labelled `observe` validates and hashes the labels on every
 * call (~0.4 µs, a share of a policy decision that bench/policy measures
 * plainly), and counting a first request through it would load prom-client
 * (7-9 MB resident) into every service a supervisor polls; here a request
 * costs three map lookups (no key string is built) and two additions.
 */

import type { MetricFamily, MetricSample } from './service-metrics.js';

/** Upper bounds in seconds (prom-client's and OPA's default buckets). */
const BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

interface Series {
  /** `code="200",handler="v1/data",method="POST"` */
  labels: string;
  /** The same labels as values, by name. */
  values: Record<string, string>;
  /** Observations per bucket (not cumulative), one more for +Inf. */
  counts: number[];
  sum: number;
  count: number;
}

export class DurationHistogram {
  /** Every series, in the order they were first observed (the order of the text). */
  readonly #series: Series[] = [];
  /** The series by their three label values, one map per label. */
  readonly #byLabels = new Map<string, Map<string, Map<string, Series>>>();
  readonly #name: string;
  readonly #help: string;
  readonly #labelNames: readonly [string, string, string];

  constructor(options: { name: string; help: string; labelNames: readonly [string, string, string] }) {
    this.#name = options.name;
    this.#help = options.help;
    this.#labelNames = options.labelNames;
  }

  /** Records one observation of `seconds`, labelled with the values of the three label names, in their order. */
  observe(seconds: number, first: string, second: string, third: string): void {
    let bySecond = this.#byLabels.get(first);
    if (bySecond === undefined) this.#byLabels.set(first, (bySecond = new Map()));
    let thirds = bySecond.get(second);
    if (thirds === undefined) bySecond.set(second, (thirds = new Map()));
    let series = thirds.get(third);
    if (series === undefined) {
      const [a, b, c] = this.#labelNames;
      series = {
        labels: `${a}="${escape(first)}",${b}="${escape(second)}",${c}="${escape(third)}"`,
        values: { [a]: first, [b]: second, [c]: third },
        counts: new Array<number>(BOUNDS.length + 1).fill(0),
        sum: 0,
        count: 0,
      };
      thirds.set(third, series);
      this.#series.push(series);
    }
    let bucket = 0;
    while (bucket < BOUNDS.length && seconds > (BOUNDS[bucket] as number)) bucket++;
    series.counts[bucket] = (series.counts[bucket] as number) + 1;
    series.sum += seconds;
    series.count++;
  }

  /** The histogram in Prometheus' text format (as prom-client writes it), ending with a newline. */
  text(): string {
    const name = this.#name;
    const lines = [`# HELP ${name} ${this.#help}`, `# TYPE ${name} histogram`];
    for (const s of this.#series) {
      let cumulative = 0;
      BOUNDS.forEach((bound, i) => {
        cumulative += s.counts[i] as number;
        lines.push(`${name}_bucket{le="${bound}",${s.labels}} ${cumulative}`);
      });
      lines.push(`${name}_bucket{le="+Inf",${s.labels}} ${s.count}`);
      lines.push(`${name}_sum{${s.labels}} ${s.sum}`);
      lines.push(`${name}_count{${s.labels}} ${s.count}`);
    }
    return `${lines.join('\n')}\n`;
  }

  /** The histogram as a metric family (prom-client's JSON shape: cumulative `_bucket` samples with `le`, `_sum`, `_count`). */
  family(): MetricFamily {
    const name = this.#name;
    const values: MetricSample[] = [];
    for (const s of this.#series) {
      let cumulative = 0;
      BOUNDS.forEach((bound, i) => {
        cumulative += s.counts[i] as number;
        values.push({ labels: { ...s.values, le: bound }, value: cumulative, metricName: `${name}_bucket` });
      });
      values.push({ labels: { ...s.values, le: '+Inf' }, value: s.count, metricName: `${name}_bucket` });
      values.push({ labels: s.values, value: s.sum, metricName: `${name}_sum` });
      values.push({ labels: s.values, value: s.count, metricName: `${name}_count` });
    }
    return { name, help: this.#help, type: 'histogram', values };
  }
}

/** A label value as the text format escapes it. */
function escape(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}
