/**
 * Benchmark of the agent front door: throughput of POST /stream for a task
 * yielding three events, against a bare node:http server writing the same
 * three SSE events, with autocannon, in interleaved rounds (bare, then each
 * variant of ours, then again), so a change of machine load hits every
 * variant alike. Each variant's figure is the median of its per-round ratios
 * to the bare server of the same round, printed with the issue's target:
 *
 * - memory sessions, anonymous requests (no Authorization header);
 * - kv sessions (Redis at SESSION_KV_URL, default 127.0.0.1:6379), anonymous;
 * - kv sessions with a bearer token (one Redis GET per request).
 *
 * Also the server's CPU time per request (from /proc), the bytes its heap
 * allocates per request (steadier than either on a shared machine: load
 * from other processes does not change what a request allocates), and
 * session resolution latency, memory vs kv.
 *
 * Allocations are counted in the server process by V8's GC profiler over
 * ALLOC_REQUESTS requests (default 5000): the heap's growth over the run
 * plus what each collection in it freed, divided by the requests.
 *
 *   npm run bench:front-door   (BENCH_SECONDS=3 BENCH_ROUNDS=5 BENCH_CONNECTIONS=32 by default)
 *
 * BENCH_BEFORE_DIST=<another build's dist> adds that build's servers as
 * further variants of the same rounds (before/after in one run); that dist
 * must hold this bench too (copy dist/bench/front-door.js and support/ into it).
 *
 * Servers run in child processes so the load generator does not share their
 * event loop. Prints figures; asserts nothing.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { AgentResponse, FrameworkAgent, FrameworkCore, KvSessionStore, InProcessSessionStore, type SessionStore } from '../runtime/index.js';
import { runAgent } from '../runtime/agent/run-agent.js';
import { median, ratioSummary, targetMark } from './support/ratios.js';
import { cpuSeconds } from './support/child-services.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const KV_URL = process.env.SESSION_KV_URL ?? 'redis://127.0.0.1:6379';
/** BENCH_ALLOCATIONS_ONLY=1: only the allocation count (quick, and steady on a loaded machine). */
const ALLOCATIONS_ONLY = process.env.BENCH_ALLOCATIONS_ONLY === '1';
const ALLOC_REQUESTS = Number(process.env.ALLOC_REQUESTS ?? 5000);
const BODY = JSON.stringify({ query: 'bench' });
const EVENTS = [
  ['status', 'Planning...'],
  ['status', 'Step 1/1: bench'],
  ['result', '{"actions":["bench"],"outcomes":["done"]}'],
] as const;
const EXPECTED = EVENTS.map(([event, data]) => `event: ${event}\ndata: ${data}\n\n`).join('');

type Kind = 'bare' | 'memory' | 'kv';

async function serveOurs(backend: 'memory' | 'kv'): Promise<number> {
  const core = new FrameworkCore();
  core.task({ name: 'route_to_task' }, async function* () {
    yield AgentResponse.status(EVENTS[0][1]);
    yield AgentResponse.status(EVENTS[1][1]);
    yield AgentResponse.result({ actions: ['bench'], outcomes: ['done'] });
  });
  const agent = new FrameworkAgent({ agentName: 'bench', description: 'benchmark agent' });
  // The bearer token must outlive the whole run (minutes on a loaded machine); its keys expire 15 min after.
  const kv = { SESSION_BACKEND: 'kv', SESSION_KV_URL: KV_URL, KV_PREFIX: `fwbench:${process.pid}:`, SESSION_TTL: '900' };
  const running = await runAgent(core, agent, { port: 0, env: { AGENT_NAME: 'bench', LOG_LEVEL: 'error', ...(backend === 'kv' ? kv : {}) } });
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

interface Served {
  child: ChildProcess;
  port: number;
}

/**
 * The server side of the allocation count: `alloc-start` starts V8's GC
 * profiler, `alloc-stop` answers the bytes allocated since (growth of the
 * used heap plus what every collection in between freed).
 */
function answerAllocationCounts(): void {
  let profiler: GCProfiler | undefined;
  let usedAtStart = 0;
  process.on('message', (message) => {
    if (message === 'alloc-start') {
      profiler = new GCProfiler();
      usedAtStart = getHeapStatistics().used_heap_size;
      profiler.start();
      process.send?.('alloc-started');
    } else if (message === 'alloc-stop' && profiler) {
      const { statistics } = profiler.stop();
      let allocated = getHeapStatistics().used_heap_size - usedAtStart;
      for (const gc of statistics) allocated += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
      profiler = undefined;
      process.send?.({ allocated });
    }
  });
}

/** Sends `message` to a server and resolves with its next answer. */
function ask(served: Served, message: string): Promise<unknown> {
  return new Promise((resolve) => {
    served.child.once('message', resolve);
    served.child.send(message);
  });
}

/** `POST /stream` under load from CONNECTIONS connections, for a number of requests or of seconds. */
function postStreams(served: Served, headers: Record<string, string>, limit: { amount: number } | { duration: number }) {
  return autocannon({
    url: `http://127.0.0.1:${served.port}/stream`,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: BODY,
    connections: CONNECTIONS,
    ...limit,
  });
}

/** Bytes the server's heap allocates per request, over `ALLOC_REQUESTS` requests. */
async function allocationsPerRequest(served: Served, headers: Record<string, string>): Promise<number> {
  await ask(served, 'alloc-start');
  const r = await postStreams(served, headers, { amount: ALLOC_REQUESTS });
  const { allocated } = (await ask(served, 'alloc-stop')) as { allocated: number };
  if (r.errors + r.non2xx > 0) throw new Error(`${r.errors + r.non2xx} requests to port ${served.port} failed while counting allocations`);
  return allocated / r.requests.total;
}

function startServer(kind: Kind, script = fileURLToPath(import.meta.url)): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = fork(script, ['serve', kind], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('message', (port) => resolve({ child, port: Number(port) }));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${String(code)}`)));
  });
}

interface Run {
  perSecond: number;
  p99: number;
  cpuUsPerRequest: number;
  errors: number;
}

async function load(served: Served, headers: Record<string, string>, seconds: number): Promise<Run> {
  const cpu0 = cpuSeconds(served.child.pid);
  const r = await postStreams(served, headers, { duration: seconds });
  const cpu = cpuSeconds(served.child.pid) - cpu0;
  return { perSecond: r.requests.average, p99: r.latency.p99, cpuUsPerRequest: (cpu * 1e6) / Math.max(1, r.requests.total), errors: r.errors + r.non2xx };
}

/** Checks the answer is what we think it is before timing it. */
async function check(served: Served, headers: Record<string, string>, label: string): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${served.port}/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: BODY,
  });
  const text = await response.text();
  if (text !== EXPECTED) throw new Error(`${label} answered ${response.status}:\n${text}`);
}

async function sessionToken(served: Served): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${served.port}/session/start`, { method: 'POST' });
  return ((await response.json()) as { session_token: string }).session_token;
}

function loadAverage(): string {
  return loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
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

interface Variant {
  label: string;
  served: Served;
  headers: Record<string, string>;
  target: number;
}

/** Throughput runs of the bare server and every variant, in interleaved rounds. */
async function timedRounds(bare: Served, variants: readonly Variant[]): Promise<{ bareRuns: Run[]; runs: Run[][] }> {
  const bareRuns: Run[] = [];
  const runs = variants.map(() => [] as Run[]);
  for (let round = 0; round < ROUNDS; round++) {
    bareRuns.push(await load(bare, {}, SECONDS));
    for (const [i, v] of variants.entries()) runs[i]!.push(await load(v.served, v.headers, SECONDS));
  }
  return { bareRuns, runs };
}

function printThroughput({ bareRuns, runs }: { bareRuns: Run[]; runs: Run[][] }, variants: readonly Variant[]): void {
  const line = (label: string, list: Run[]) =>
    `${label.padEnd(30)} ${median(list.map((r) => r.perSecond))
      .toFixed(0)
      .padStart(7)} req/s   p99 ${String(median(list.map((r) => r.p99))).padStart(4)} ms   server CPU ${median(list.map((r) => r.cpuUsPerRequest))
      .toFixed(0)
      .padStart(4)} µs/request   errors ${list.reduce((n, r) => n + r.errors, 0)}`;
  console.log(line('bare node:http', bareRuns));
  for (const [i, v] of variants.entries()) console.log(line(v.label, runs[i]!));
  console.log('throughput vs bare (median of per-round ratios):');
  for (const [i, v] of variants.entries()) {
    const ratios = runs[i]!.map((r, round) => r.perSecond / bareRuns[round]!.perSecond);
    const cpu = runs[i]!.map((r, round) => r.cpuUsPerRequest / bareRuns[round]!.cpuUsPerRequest);
    console.log(
      `  ${v.label.padEnd(28)} ${ratioSummary(ratios)}   ${targetMark(median(ratios), v.target, 'at least')}   server CPU per request ${median(cpu).toFixed(2)}× bare`,
    );
  }
}

async function main(): Promise<void> {
  const [role, kind] = process.argv.slice(2);
  if (role === 'serve') {
    const port = kind === 'bare' ? await serveBare() : await serveOurs(kind === 'kv' ? 'kv' : 'memory');
    answerAllocationCounts();
    process.send?.(port);
    return;
  }
  console.log(
    `front door: POST /stream, 3 SSE events per request, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${SECONDS} s per variant (node ${process.version}, load average ${loadAverage()})`,
  );
  const bare = await startServer('bare');
  const memory = await startServer('memory');
  const kv = await startServer('kv');
  const beforeScript = process.env.BENCH_BEFORE_DIST ? join(process.env.BENCH_BEFORE_DIST, 'bench/front-door.js') : undefined;
  const before = beforeScript ? { memory: await startServer('memory', beforeScript), kv: await startServer('kv', beforeScript) } : undefined;
  try {
    const bearer = { authorization: `Bearer ${await sessionToken(kv)}` };
    const variants: Variant[] = [
      { label: 'memory sessions, anonymous', served: memory, headers: {}, target: 0.7 },
      { label: 'kv sessions, anonymous', served: kv, headers: {}, target: 0.5 },
      { label: 'kv sessions, bearer token', served: kv, headers: bearer, target: 0.5 },
    ];
    if (before) {
      const beforeBearer = { authorization: `Bearer ${await sessionToken(before.kv)}` };
      variants.push(
        { label: 'BEFORE memory, anonymous', served: before.memory, headers: {}, target: 0.7 },
        { label: 'BEFORE kv, anonymous', served: before.kv, headers: {}, target: 0.5 },
        { label: 'BEFORE kv, bearer token', served: before.kv, headers: beforeBearer, target: 0.5 },
      );
    }
    await check(bare, {}, 'bare server');
    for (const v of variants) await check(v.served, v.headers, v.label);
    // Warm every server's JIT before timing.
    await load(bare, {}, 1);
    for (const v of variants) await load(v.served, v.headers, 1);

    if (!ALLOCATIONS_ONLY) printThroughput(await timedRounds(bare, variants), variants);

    console.log(`heap allocated per request (${ALLOC_REQUESTS} requests per variant and round, median of ${ROUNDS} rounds; load average ${loadAverage()}):`);
    const bareBytes: number[] = [];
    const bytes = variants.map(() => [] as number[]);
    for (let round = 0; round < ROUNDS; round++) {
      bareBytes.push(await allocationsPerRequest(bare, {}));
      for (const [i, v] of variants.entries()) bytes[i]!.push(await allocationsPerRequest(v.served, v.headers));
    }
    const kb = (list: number[]) => `${(median(list) / 1024).toFixed(1).padStart(6)} KB`;
    console.log(`  ${'bare node:http'.padEnd(28)} ${kb(bareBytes)}`);
    for (const [i, v] of variants.entries()) {
      const ratios = bytes[i]!.map((b, round) => b / bareBytes[round]!);
      console.log(`  ${v.label.padEnd(28)} ${kb(bytes[i]!)}   ${median(ratios).toFixed(2)}× bare`);
    }
  } finally {
    for (const served of [bare, memory, kv, ...(before ? [before.memory, before.kv] : [])]) served.child.kill('SIGTERM');
  }

  console.log('\nsession resolution (resolve a bearer token to its context), 20000 sequential calls');
  const memoryStore = new InProcessSessionStore({ ttlSeconds: 3600 });
  const kvStore = new KvSessionStore({ url: KV_URL, ttlSeconds: 60, keyPrefix: `fwbench:${process.pid}:` }); // keys expire a minute after the run
  try {
    for (const [name, store] of [
      ['memory', memoryStore],
      ['kv (Redis)', kvStore],
    ] as const) {
      await sessionLatency(store, 1000);
      const r = await sessionLatency(store, 20_000);
      console.log(
        `${name.padEnd(12)} p50 ${r.p50.toFixed(1).padStart(7)} µs   p99 ${r.p99.toFixed(1).padStart(7)} µs   ${r.perSecond.toFixed(0).padStart(8)} /s`,
      );
    }
  } finally {
    await memoryStore.close();
    await kvStore.close();
  }
}

await main();
