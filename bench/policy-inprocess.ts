/**
 * In-process policy evaluation benchmark: compile once, evaluate
 * `data.a2a_access.allow` many times. Prints decisions/s and p50/p99 latency.
 * No assertions (timings vary by machine).
 *
 * Run: npm run build && node dist/bench/policy-inprocess.js
 */
import { compilePolicy } from '../runtime/policy/engine.js';
import { fromJS } from '../runtime/policy/value-json.js';

const POLICY = `package a2a_access

default allow := false

allow if {
  input.source_agent.name == "planner"
  input.target_agent.name == "researcher"
}

allow if {
  input.source_agent.name == "planner"
  input.target_agent.name == "writer"
}

allow if {
  input.source_agent.name == "researcher"
  input.target_agent.name == "writer"
}

allow if {
  input.source_agent.name == "orchestrator"
}
`;

const inputs = [
  { source_agent: { name: 'planner' }, target_agent: { name: 'writer' } },
  { source_agent: { name: 'writer' }, target_agent: { name: 'planner' } },
  { source_agent: { name: 'orchestrator' }, target_agent: { name: 'anyone' } },
  { source_agent: { name: 'researcher' }, target_agent: { name: 'writer' } },
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

function measure(label: string, evaluate: (i: number) => unknown, iterations: number): void {
  for (let i = 0; i < 20_000; i++) evaluate(i); // warm up
  const samples = new Array<number>(iterations);
  let allowed = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    if (evaluate(i) === true) allowed++;
    samples[i] = Number(process.hrtime.bigint() - t0);
  }
  const totalNs = Number(process.hrtime.bigint() - start);
  samples.sort((a, b) => a - b);
  const perSec = Math.round((iterations / totalNs) * 1e9);
  console.log(
    `${label.padEnd(34)} ${String(perSec).padStart(10)} decisions/s   p50 ${(percentile(samples, 0.5) / 1000).toFixed(2)} µs   p99 ${(percentile(samples, 0.99) / 1000).toFixed(2)} µs   (allowed ${allowed}/${iterations})`,
  );
}

const policy = compilePolicy({ modules: { 'a2a_access.rego': POLICY } });
const values = inputs.map((x) => fromJS(x));
const prepared = policy.prepare('x := data.a2a_access.allow');
const N = 200_000;

measure('evaluate(path, JS input)', (i) => policy.evaluate('a2a_access.allow', inputs[i % inputs.length]), N);
measure('evaluate(path, Rego input value)', (i) => policy.evaluate('a2a_access.allow', undefined, { inputValue: values[i % values.length] }), N);
measure('prepared query', (i) => prepared.run({ inputValue: values[i % values.length] })[0]?.x, N);
