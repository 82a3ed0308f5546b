import type { CompiledPolicy } from '../engine.js';
import type { Value } from '../value.js';

/** What `policy bench` measures (names after `opa bench`'s table). */
export interface BenchReport {
  samples: number;
  ns_per_op: number;
  /** Heap growth per evaluation, a rough figure (garbage collection runs meanwhile). */
  bytes_per_op: number;
  p50_ns: number;
  p90_ns: number;
  p99_ns: number;
  max_ns: number;
  /** Solutions of the last evaluation (0: the query was undefined). */
  solutions: number;
}

/**
 * Compiles `query` once and evaluates it `count` times (or for `timeMs`),
 * after a short warm-up; builtin errors are raised, as in `opa bench`.
 */
export function benchQuery(policy: CompiledPolicy, query: string, options: { input?: Value; count?: number; timeMs?: number } = {}): BenchReport {
  const prepared = policy.prepare(query);
  const run = () => prepared.run({ ...(options.input === undefined ? {} : { inputValue: options.input }), strictBuiltinErrors: true }).length;
  let solutions = run();
  const warmUntil = performance.now() + 100;
  for (let i = 0; i < 1000 && performance.now() < warmUntil; i++) run();
  const samples: number[] = [];
  const stopAt = options.count === undefined ? performance.now() + (options.timeMs ?? 1000) : Infinity;
  const heapBefore = process.memoryUsage().heapUsed;
  const started = process.hrtime.bigint();
  while (options.count === undefined ? performance.now() < stopAt : samples.length < options.count) {
    const t0 = process.hrtime.bigint();
    solutions = run();
    samples.push(Number(process.hrtime.bigint() - t0));
  }
  const total = Number(process.hrtime.bigint() - started);
  const heapGrowth = Math.max(0, process.memoryUsage().heapUsed - heapBefore);
  samples.sort((a, b) => a - b);
  const at = (p: number) => samples[Math.min(samples.length - 1, Math.floor(samples.length * p))] ?? 0;
  return {
    samples: samples.length,
    ns_per_op: Math.round(total / Math.max(1, samples.length)),
    bytes_per_op: Math.round(heapGrowth / Math.max(1, samples.length)),
    p50_ns: at(0.5),
    p90_ns: at(0.9),
    p99_ns: at(0.99),
    max_ns: samples[samples.length - 1] ?? 0,
    solutions,
  };
}
