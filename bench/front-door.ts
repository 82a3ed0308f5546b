/**
 * Benchmark of the agent front door: throughput and latency of POST /stream
 * for a task yielding three events, against a bare node:http server writing
 * the same three SSE events, measured in the same run with autocannon. Also
 * session resolution latency, memory vs kv (Redis at 127.0.0.1:6379).
 *
 *   npm run bench            (BENCH_SECONDS=5 BENCH_CONNECTIONS=32 by default)
 *
 * Servers run in a child process so the load generator does not share their
 * event loop. Prints figures; asserts nothing.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { AgentResponse, FrameworkAgent, FrameworkCore, KvSessionStore, InProcessSessionStore, type SessionStore } from '../runtime/index.js';
import { runAgent } from '../runtime/agent/run-agent.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const BODY = JSON.stringify({ query: 'bench' });
const EVENTS = [
  ['status', 'Planning...'],
  ['status', 'Step 1/1: bench'],
  ['result', '{"actions":["bench"],"outcomes":["done"]}'],
] as const;

async function serveOurs(): Promise<number> {
  const core = new FrameworkCore();
  core.task({ name: 'route_to_task' }, async function* () {
    yield AgentResponse.status(EVENTS[0][1]);
    yield AgentResponse.status(EVENTS[1][1]);
    yield AgentResponse.result({ actions: ['bench'], outcomes: ['done'] });
  });
  const agent = new FrameworkAgent({ agentName: 'bench', description: 'benchmark agent' });
  const running = await runAgent(core, agent, { port: 0, env: { AGENT_NAME: 'bench', LOG_LEVEL: 'error' } });
  return running.port;
}

async function serveBare(): Promise<number> {
  const payload = EVENTS.map(([event, data]) => `event: ${event}\ndata: ${data}\n\n`);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
      for (const event of payload) res.write(event);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function startServer(kind: 'ours' | 'bare'): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['serve', kind], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('message', (port) => resolve({ child, port: Number(port) }));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${String(code)}`)));
  });
}

async function load(port: number): Promise<autocannon.Result> {
  return autocannon({
    url: `http://127.0.0.1:${port}/stream`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: BODY,
    connections: CONNECTIONS,
    duration: SECONDS,
  });
}

async function measure(kind: 'ours' | 'bare'): Promise<autocannon.Result> {
  const { child, port } = await startServer(kind);
  try {
    // Check the answer is what we think it is before timing it.
    const text = await (await fetch(`http://127.0.0.1:${port}/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY })).text();
    const expected = EVENTS.map(([event, data]) => `event: ${event}\ndata: ${data}\n\n`).join('');
    if (text !== expected) throw new Error(`${kind} server answered:\n${text}`);
    await autocannon({
      url: `http://127.0.0.1:${port}/stream`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: BODY,
      connections: CONNECTIONS,
      duration: 1,
    });
    return await load(port);
  } finally {
    child.kill('SIGTERM');
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function sessionLatency(store: SessionStore, rounds: number): Promise<{ p50: number; p99: number; perSecond: number }> {
  const tokens = await Promise.all(Array.from({ length: 100 }, () => store.start()));
  const samples: number[] = [];
  const started = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) {
    const t0 = process.hrtime.bigint();
    const session = await store.resolve(tokens[i % tokens.length]!.token);
    samples.push(Number(process.hrtime.bigint() - t0) / 1000);
    if (!session) throw new Error('session did not resolve');
  }
  const totalSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), perSecond: rounds / totalSeconds };
}

function row(name: string, r: autocannon.Result): string {
  return `${name.padEnd(22)} ${r.requests.average.toFixed(0).padStart(8)} req/s   p50 ${String(r.latency.p50).padStart(4)} ms   p99 ${String(r.latency.p99).padStart(4)} ms   errors ${r.errors + r.non2xx}`;
}

async function main(): Promise<void> {
  const [role, kind] = process.argv.slice(2);
  if (role === 'serve') {
    const port = kind === 'bare' ? await serveBare() : await serveOurs();
    process.send?.(port);
    return;
  }
  console.log(`front door: POST /stream, 3 SSE events per request, ${CONNECTIONS} connections, ${SECONDS} s each (node ${process.version})`);
  const bare = await measure('bare');
  const ours = await measure('ours');
  console.log(row('bare node:http', bare));
  console.log(row('framework_core', ours));
  console.log(
    `ratio framework_core / bare: throughput ${(ours.requests.average / bare.requests.average).toFixed(2)}, mean latency ${(ours.latency.average / bare.latency.average).toFixed(2)} (${ours.latency.average.toFixed(2)} ms vs ${bare.latency.average.toFixed(2)} ms)`,
  );

  console.log('\nsession resolution (resolve a bearer token to its context), 20000 sequential calls');
  const memory = new InProcessSessionStore({ ttlSeconds: 3600 });
  const kv = new KvSessionStore({ url: process.env.SESSION_KV_URL ?? 'redis://127.0.0.1:6379', ttlSeconds: 60, keyPrefix: `fwbench:${process.pid}:` }); // keys expire a minute after the run
  try {
    for (const [name, store] of [
      ['memory', memory],
      ['kv (Redis)', kv],
    ] as const) {
      await sessionLatency(store, 1000);
      const r = await sessionLatency(store, 20_000);
      console.log(
        `${name.padEnd(12)} p50 ${r.p50.toFixed(1).padStart(7)} µs   p99 ${r.p99.toFixed(1).padStart(7)} µs   ${r.perSecond.toFixed(0).padStart(8)} /s`,
      );
    }
  } finally {
    await memory.close();
    await kv.close();
  }
}

await main();
