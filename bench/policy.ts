/**
 * Policy decision benchmark for `data.a2a_access.allow` (the shipped policy):
 * - in process: compiled once, evaluated many times; decisions/s and p50/p99;
 * - through the OPA-compatible server (`policy serve`, its own process, one
 *   core) with keep-alive HTTP from autocannon; decisions/s and latency.
 *
 *   npm run bench:policy      (BENCH_SECONDS=5 BENCH_CONNECTIONS=16 by default)
 *
 * Reference figures (not measured here): OPA's docs report about 45 µs per
 * decision for their RBAC example; regorus about 2.4 µs per evaluation.
 * Prints figures; asserts nothing.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { fromJS } from '../runtime/policy/value-json.js';
import { startPolicyServer } from '../runtime/policy/server/start-policy-server.js';
import { loadPolicySet } from '../runtime/policy/tools/load-policies.js';

const POLICIES = fileURLToPath(new URL('../../policies', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const INPUTS = [
  ['orchestrator', 'executor'],
  ['planner', 'orchestrator'],
  ['planner', 'executor'],
  ['executor', 'semantic-layer'],
  ['untrusted', 'database'],
].map(([source, target]) => ({
  source_agent: { name: source, description: `${source} agent`, url: 'http://127.0.0.1:8100' },
  target_agent: { name: target, description: `${target} agent`, url: 'http://127.0.0.1:8101' },
  communication: { timestamp: '2026-01-01T00:00:00Z', message_preview: 'Plan the trip', message_length: 13 },
  validation_mode: 'strict',
}));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

async function inProcess(): Promise<void> {
  const { policy } = await loadPolicySet([POLICIES]);
  const values = INPUTS.map((i) => fromJS(i));
  const run = (label: string, decide: (i: number) => unknown, n: number) => {
    for (let i = 0; i < 20_000; i++) decide(i);
    const samples = new Array<number>(n);
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      const t0 = process.hrtime.bigint();
      decide(i);
      samples[i] = Number(process.hrtime.bigint() - t0);
    }
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    samples.sort((a, b) => a - b);
    console.log(
      `${label.padEnd(40)} ${Math.round(n / seconds)
        .toLocaleString('en')
        .padStart(11)} decisions/s   p50 ${(percentile(samples, 0.5) / 1000).toFixed(2)} µs   p99 ${(percentile(samples, 0.99) / 1000).toFixed(2)} µs`,
    );
  };
  console.log('in process (compiled once):');
  run('  evaluate, JSON-like input', (i) => policy.evaluate('a2a_access/allow', INPUTS[i % INPUTS.length]), 200_000);
  run('  evaluate, input already a Rego value', (i) => policy.evaluate('a2a_access/allow', undefined, { inputValue: values[i % values.length]! }), 200_000);
}

async function server(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ['serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve(String(m)));
    child.once('exit', (code) => reject(new Error(`policy server exited with ${String(code)}`)));
  });
  try {
    const requests = INPUTS.map((input) => ({ method: 'POST' as const, path: '/v1/data/a2a_access/allow', body: JSON.stringify({ input }) }));
    const check = await fetch(`${url}/v1/data/a2a_access/allow`, { method: 'POST', body: requests[0]!.body });
    if ((await check.text()) !== '{"result":true}') throw new Error('the server gave an unexpected answer');
    await autocannon({ url, connections: CONNECTIONS, duration: 1, requests });
    const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, requests });
    console.log(`\nthrough the server (keep-alive HTTP, ${CONNECTIONS} connections, ${SECONDS} s, server on one core):`);
    console.log(
      `  POST /v1/data/a2a_access/allow          ${Math.round(result.requests.average).toLocaleString('en').padStart(11)} decisions/s   p50 ${result.latency.p50} ms   p99 ${result.latency.p99} ms   mean ${result.latency.average.toFixed(2)} ms   errors ${result.errors + result.non2xx}`,
    );
  } finally {
    child.kill('SIGTERM');
  }
}

if (process.argv[2] === 'serve') {
  const running = await startPolicyServer({ dir: POLICIES, port: 0, watch: false });
  process.send?.(running.url);
} else {
  console.log(`policy decisions for data.a2a_access.allow (node ${process.version})`);
  await inProcess();
  await server();
  console.log('\nreference: OPA docs ~45 µs/decision (RBAC example); regorus ~2.4 µs/evaluation; targets: in-process p50 < 10 µs, server > 5,000 decisions/s');
}
