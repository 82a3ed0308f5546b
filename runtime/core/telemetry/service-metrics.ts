import { createRequire } from 'node:module';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The metrics of this process, served as Prometheus text at `GET /metrics` by
 * every service. One registry per process: a component asks for its metric by
 * name (`counter`, `gauge`, `histogram`) and gets the same one however many
 * servers the process runs, so tests that start several in one process do not
 * register a name twice.
 *
 * prom-client (about 75 modules, 7-9 MB resident; CommonJS, so loaded
 * synchronously) is loaded when a metric is first used or `/metrics` first
 * read, not when a component declares its metrics: an idle service does not
 * hold it. Every declared metric is made before a scrape, so the text is the
 * same as if they had been made at once.
 */
const require = createRequire(import.meta.url);
let library: typeof import('prom-client') | undefined;
let registry: Registry | undefined;

/** prom-client, loaded by its first use. */
export function promClient(): typeof import('prom-client') {
  return (library ??= require('prom-client') as typeof import('prom-client'));
}

function serviceRegistry(): Registry {
  return (registry ??= new (promClient().Registry)());
}

type Labels<L extends string> = readonly L[];

const made = new Map<string, unknown>();
/** Makers of the metrics declared and not yet made; a scrape makes them all. */
const pending = new Set<() => unknown>();

/**
 * A declared metric: the prom-client metric is made (and prom-client loaded)
 * when a method or property is first read, or at the first scrape.
 */
function declare<M extends object>(name: string, make: () => M): M {
  let metric = made.get(name) as M | undefined;
  if (metric !== undefined) return metric;
  let real: M | undefined;
  const materialize = (): M => {
    if (real === undefined) {
      real = make();
      pending.delete(materialize);
    }
    return real;
  };
  pending.add(materialize);
  const methods = new Map<PropertyKey, unknown>();
  metric = new Proxy({} as M, {
    get(_target, key) {
      const target = materialize();
      let method = methods.get(key);
      if (method === undefined) {
        const value: unknown = Reflect.get(target, key, target);
        if (typeof value !== 'function') return value;
        method = value.bind(target);
        methods.set(key, method);
      }
      return method;
    },
  });
  made.set(name, metric);
  return metric;
}

export function counter<L extends string>(name: string, help: string, labelNames: Labels<L> = []): Counter<L> {
  return declare(name, () => new (promClient().Counter<L>)({ name, help, labelNames, registers: [serviceRegistry()] }));
}

/** A gauge; `collect` (when given) sets its value each time /metrics is read. */
export function gauge<L extends string>(
  name: string,
  help: string,
  options: { labelNames?: Labels<L>; collect?: (gauge: Gauge<L>) => void | Promise<void> } = {},
): Gauge<L> {
  return declare(name, () => {
    const { collect } = options;
    return new (promClient().Gauge<L>)({
      name,
      help,
      labelNames: options.labelNames ?? [],
      registers: [serviceRegistry()],
      ...(collect
        ? {
            async collect(this: Gauge<L>) {
              await collect(this);
            },
          }
        : {}),
    });
  });
}

export function histogram<L extends string>(name: string, help: string, options: { labelNames?: Labels<L>; buckets?: number[] } = {}): Histogram<L> {
  return declare(
    name,
    () =>
      new (promClient().Histogram<L>)({
        name,
        help,
        labelNames: options.labelNames ?? [],
        registers: [serviceRegistry()],
        ...(options.buckets ? { buckets: options.buckets } : {}),
      }),
  );
}

/** One sample of a metric family: a counter's or gauge's value, or a histogram's `_bucket` (with `le`), `_sum` or `_count`. */
export interface MetricSample {
  labels: Record<string, string | number>;
  value: number;
  /** The sample's full name for a histogram (`<name>_bucket`, `_sum`, `_count`). */
  metricName?: string;
}

/** A metric family in the shape of prom-client's `getMetricsAsJSON` (the fields OTLP export reads). */
export interface MetricFamily {
  name: string;
  help: string;
  type: string;
  values: readonly MetricSample[];
}

/** A metric kept without prom-client (a hot path's histogram): its Prometheus text and its family. */
export interface PlainMetric {
  /** Prometheus text, ending with a newline. */
  text(): string;
  family(): MetricFamily;
}

/** Metrics kept without prom-client, written after the registry's at each scrape. */
const plainMetrics = new Set<PlainMetric>();

/** Adds a metric that keeps its own figures to this process's `/metrics` (and OTLP export). */
export function plainMetric(metric: PlainMetric): void {
  plainMetrics.add(metric);
}

/** Families a service serves on its `/metrics` from outside this registry (the policy engine's OPA-named ones). */
const familySources = new Set<() => Promise<readonly MetricFamily[]>>();

/**
 * Adds families that a service writes on its own `/metrics` beside this
 * process's (under names of its own) to what OTLP export sends, so a backend
 * sees what a scraper sees. Returns the function that removes them.
 */
export function metricFamilySource(source: () => Promise<readonly MetricFamily[]>): () => void {
  familySources.add(source);
  return () => familySources.delete(source);
}

/** Every metric family of this process, declared ones made first: what OTLP export sends, the same figures as `/metrics`. */
export async function serviceMetricFamilies(): Promise<MetricFamily[]> {
  for (const materialize of [...pending]) materialize();
  const families = (await serviceRegistry().getMetricsAsJSON()) as unknown as MetricFamily[];
  for (const metric of plainMetrics) families.push(metric.family());
  for (const source of familySources) families.push(...(await source()));
  return families;
}

/** The Prometheus text of this process's metrics, and its content type. */
export async function serviceMetricsText(): Promise<{ text: string; contentType: string }> {
  for (const materialize of [...pending]) materialize();
  const metrics = serviceRegistry();
  let text = await metrics.metrics();
  for (const metric of plainMetrics) text += `\n${metric.text()}`;
  return { text, contentType: metrics.contentType };
}

/** The `GET /metrics` answer of a service. */
export async function metricsResponse(): Promise<Response> {
  const { text, contentType } = await serviceMetricsText();
  return new Response(text, { headers: { 'Content-Type': contentType } });
}
