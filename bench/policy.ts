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
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { fromJS } from '../runtime/policy/value-json.js';
import { startPolicyServer } from '../runtime/policy/server/start-policy-server.js';
import { loadPolicySet } from '../runtime/policy/tools/load-policies.js';
import { TraceRecorder } from '../runtime/policy/trace/trace-recorder.js';

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
  const run = (label: string, decide: (i: number) => unknown, n: number): number => {
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
    return percentile(samples, 0.5);
  };
  console.log('in process (compiled once):');
  run('  evaluate, JSON-like input', (i) => policy.evaluate('a2a_access/allow', INPUTS[i % INPUTS.length]), 200_000);
  const plain = run(
    '  evaluate, input already a Rego value',
    (i) => policy.evaluate('a2a_access/allow', undefined, { inputValue: values[i % values.length]! }),
    200_000,
  );
  // ?explain: the policy compiled for tracing, recording every event (the untraced closures above never pay for it).
  const traced = policy.traced();
  const full = run(
    '  evaluate traced (explain=full events)',
    (i) => traced.evaluate('a2a_access/allow', undefined, { inputValue: values[i % values.length]!, trace: new TraceRecorder() }),
    20_000,
  );
  console.log(`  ratio traced / untraced p50: ${(full / plain).toFixed(1)}x`);
}

/** Runs autocannon against a forked server (`mode`: the policy server, or a bare node:http server answering the same JSON). */
async function load(mode: 'serve' | 'bare'): Promise<autocannon.Result> {
  const child = fork(fileURLToPath(import.meta.url), [mode], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve(String(m)));
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${String(code)}`)));
  });
  try {
    const requests = INPUTS.map((input) => ({ method: 'POST' as const, path: '/v1/data/a2a_access/allow', body: JSON.stringify({ input }) }));
    const check = await fetch(`${url}/v1/data/a2a_access/allow`, { method: 'POST', body: requests[0]!.body });
    if ((await check.text()) !== '{"result":true}') throw new Error('the server gave an unexpected answer');
    await autocannon({ url, connections: CONNECTIONS, duration: 1, requests });
    return await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, requests });
  } finally {
    child.kill('SIGTERM');
  }
}

async function server(): Promise<void> {
  const policy = await load('serve');
  const bare = await load('bare');
  const line = (label: string, r: autocannon.Result) =>
    `  ${label.padEnd(40)} ${Math.round(r.requests.average).toLocaleString('en').padStart(11)} requests/s   p50 ${r.latency.p50} ms   p99 ${r.latency.p99} ms   mean ${r.latency.average.toFixed(2)} ms   errors ${r.errors + r.non2xx}`;
  console.log(`\nthrough HTTP (keep-alive, ${CONNECTIONS} connections, ${SECONDS} s, each server one process):`);
  console.log(line('policy server POST /v1/data/.../allow', policy));
  console.log(line('bare node:http, same JSON answer', bare));
  console.log(`  ratio policy server / bare node:http: ${(policy.requests.average / bare.requests.average).toFixed(2)}x (target >= 0.6x)`);
}

if (process.argv[2] === 'serve') {
  const running = await startPolicyServer({ dir: POLICIES, port: 0, watch: false });
  process.send?.(running.url);
} else if (process.argv[2] === 'bare') {
  // The floor: read the body, answer the decision's JSON; no routing, no policy.
  const bare = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"result":true}');
    });
  });
  bare.listen(0, '127.0.0.1', () => process.send?.(`http://127.0.0.1:${(bare.address() as AddressInfo).port}`));
} else {
  console.log(`policy decisions for data.a2a_access.allow (node ${process.version})`);
  await inProcess();
  await server();
  console.log(
    '\nreference: OPA docs ~45 µs/decision (RBAC example); regorus ~2.4 µs/evaluation; targets: in-process p50 <= 2 µs, policy server >= 0.6x a bare node:http server',
  );
}
