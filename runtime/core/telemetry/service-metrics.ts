import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The metrics of this process, served as Prometheus text at `GET /metrics` by
 * every service. One registry per process: a component asks for its metric by
 * name (`counter`, `gauge`, `histogram`) and gets the same one however many
 * servers the process runs, so tests that start several in one process do not
 * register a name twice.
 */
export const serviceRegistry = new Registry();

type Labels<L extends string> = readonly L[];

const made = new Map<string, unknown>();

function once<M>(name: string, make: () => M): M {
  let metric = made.get(name) as M | undefined;
  if (metric === undefined) {
    metric = make();
    made.set(name, metric);
  }
  return metric;
}

export function counter<L extends string>(name: string, help: string, labelNames: Labels<L> = []): Counter<L> {
  return once(name, () => new Counter({ name, help, labelNames, registers: [serviceRegistry] }));
}

/** A gauge; `collect` (when given) sets its value each time /metrics is read. */
export function gauge<L extends string>(
  name: string,
  help: string,
  options: { labelNames?: Labels<L>; collect?: (gauge: Gauge<L>) => void | Promise<void> } = {},
): Gauge<L> {
  return once(name, () => {
    const { collect } = options;
    return new Gauge<L>({
      name,
      help,
      labelNames: options.labelNames ?? [],
      registers: [serviceRegistry],
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
  return once(
    name,
    () =>
      new Histogram({
        name,
        help,
        labelNames: options.labelNames ?? [],
        registers: [serviceRegistry],
        ...(options.buckets ? { buckets: options.buckets } : {}),
      }),
  );
}

/** The Prometheus text of this process's metrics, and its content type. */
export async function serviceMetricsText(): Promise<{ text: string; contentType: string }> {
  return { text: await serviceRegistry.metrics(), contentType: serviceRegistry.contentType };
}

/** The `GET /metrics` answer of a service. */
export async function metricsResponse(): Promise<Response> {
  const { text, contentType } = await serviceMetricsText();
  return new Response(text, { headers: { 'Content-Type': contentType } });
}
