/**
 * `http_request_duration_seconds`, the histogram OPA's server exports, kept
 * in plain arrays and written as Prometheus text when /metrics is scraped.
 * prom-client's labelled `observe` validates and hashes the labels on every
 * call (~0.4 µs), a share of a policy decision that bench/policy measures
 * plainly; here a request costs a map lookup and two additions.
 */

/** Upper bounds in seconds (prom-client's and OPA's default buckets). */
const BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

interface Series {
  /** `code="200",handler="v1/data",method="POST"` */
  labels: string;
  /** Requests per bucket (not cumulative), one more for +Inf. */
  counts: number[];
  sum: number;
  count: number;
}

export class RequestDurations {
  static readonly NAME = 'http_request_duration_seconds';
  readonly #series = new Map<string, Series>();

  /** Records one request of `seconds`. */
  observe(code: number, handler: string, method: string, seconds: number): void {
    const key = `${code} ${handler} ${method}`;
    let series = this.#series.get(key);
    if (series === undefined) {
      series = {
        labels: `code="${code}",handler="${escape(handler)}",method="${escape(method)}"`,
        counts: new Array<number>(BOUNDS.length + 1).fill(0),
        sum: 0,
        count: 0,
      };
      this.#series.set(key, series);
    }
    let bucket = 0;
    while (bucket < BOUNDS.length && seconds > (BOUNDS[bucket] as number)) bucket++;
    series.counts[bucket] = (series.counts[bucket] as number) + 1;
    series.sum += seconds;
    series.count++;
  }

  /** The histogram in Prometheus' text format (as prom-client writes it), ending with a newline. */
  text(): string {
    const lines = [`# HELP ${RequestDurations.NAME} A histogram of duration for requests.`, `# TYPE ${RequestDurations.NAME} histogram`];
    for (const s of this.#series.values()) {
      let cumulative = 0;
      BOUNDS.forEach((bound, i) => {
        cumulative += s.counts[i] as number;
        lines.push(`${RequestDurations.NAME}_bucket{le="${bound}",${s.labels}} ${cumulative}`);
      });
      lines.push(`${RequestDurations.NAME}_bucket{le="+Inf",${s.labels}} ${s.count}`);
      lines.push(`${RequestDurations.NAME}_sum{${s.labels}} ${s.sum}`);
      lines.push(`${RequestDurations.NAME}_count{${s.labels}} ${s.count}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

/** A label value as the text format escapes it. */
function escape(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}
