/**
 * Idle memory of every service: the resident set (VmRSS) of each one started
 * with `framework-cli`, healthy and then left alone for a moment, against a
 * bare node:http server answering GET /health, in interleaved rounds (bare,
 * then each service, then again); a service's figure is the median of its
 * per-round ratios to the bare server, against the issue's target (≤ 1.5×).
 * Two readings: 1.5 s after the service answers (just started), and once it
 * has been left alone long enough for V8's memory reducer to give back what
 * the start left committed (BENCH_IDLE_SETTLED_MS, default 12 s: the reducer
 * runs about 8 s after the heap stops growing), the bare server read alike.
 * Also the RSS after one ordinary request, which loads what a request needs.
 * Services whose dependencies are not started (the Guardian's policy engine,
 * the model runtime) count as up once their health route answers, 503 included.
 *
 *   npm run bench:idle-rss     (BENCH_ROUNDS=3 by default; Redis at 127.0.0.1:6379 for the memory service)
 *
 * BENCH_BEFORE_CLI=<another build's cli/bin/run.js> adds that build's services
 * as further rows measured in the same rounds (before/after in one run).
 *
 * Prints figures; asserts nothing.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, REPO_ROOT, rssMb, startCli, type ChildService } from './support/child-services.js';
import { median, ratioSummary, targetMark } from './support/ratios.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BEFORE_CLI = process.env.BENCH_BEFORE_CLI;
const SETTLE_MS = 1500;
const SETTLED_MS = Number(process.env.BENCH_IDLE_SETTLED_MS ?? 12_000);
const TARGET = 1.5;
const KV_URL = process.env.KV_URL ?? 'redis://127.0.0.1:6379';

interface Service {
  name: string;
  start(scratch: string, cli?: string): Promise<ChildService>;
  /** One ordinary request, for the RSS once a request has loaded what it needs. */
  request(url: string): Promise<unknown>;
}

const BARE_SERVER = `require('node:http').createServer((q, s) => s.end('{"status":"ok"}')).listen(Number(process.argv[1]), '127.0.0.1')`;

async function startBare(): Promise<ChildService> {
  const port = await freePort();
  const child = spawn(process.execPath, ['-e', BARE_SERVER, String(port)], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const alive = () => child.exitCode === null && child.signalCode === null;
  return { name: 'bare', url, process: child, alive, output: () => '', stop: async () => void (alive() && (child.kill(), await once(child, 'exit'))) };
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then((r) => r.text());

const SERVICES: Service[] = [
  {
    name: 'agent (hello example)',
    start: async (_scratch, cli) => {
      const port = await freePort();
      return startCli({ cli, name: 'agent', args: ['serve', 'agent', '--port', String(port)], port });
    },
    request: (url) => post(`${url}/query`, { query: 'hello' }),
  },
  {
    name: 'policy engine (shipped policies)',
    start: async (_scratch, cli) => {
      const port = await freePort();
      return startCli({ cli, name: 'policy', args: ['policy', 'serve', '--addr', `127.0.0.1:${port}`, '--no-watch', join(REPO_ROOT, 'policies')], port });
    },
    request: (url) => post(`${url}/v1/data/a2a_access/allow`, { input: {} }),
  },
  {
    name: 'Guardian',
    start: async (_scratch, cli) => {
      const port = await freePort();
      return startCli({
        cli,
        name: 'guardian',
        args: ['serve', 'guardian', '--addr', `127.0.0.1:${port}`, '--opa-url', 'http://127.0.0.1:9'],
        port,
        anyAnswer: true,
      });
    },
    request: (url) => fetch(`${url}/health`).then((r) => r.text()),
  },
  {
    name: 'model runtime',
    start: async (scratch, cli) => {
      const port = await freePort();
      return startCli({
        cli,
        name: 'model',
        args: ['model', 'serve', '--addr', `127.0.0.1:${port}`],
        port,
        healthPath: '/',
        env: { FRAMEWORK_MODELS_DIR: join(scratch, 'models') },
      });
    },
    request: (url) => fetch(`${url}/api/tags`).then((r) => r.text()),
  },
  {
    name: 'Semantic Layer',
    start: async (scratch, cli) => {
      const port = await freePort();
      return startCli({
        cli,
        name: 'semantic',
        args: ['serve', 'semantic-layer', '--addr', `127.0.0.1:${port}`, '--store-dir', join(scratch, 'semantic'), '--cards', join(scratch, 'cards')],
        port,
        env: { OLLAMA_HOST: 'http://127.0.0.1:9' },
        anyAnswer: true,
      });
    },
    request: (url) => fetch(`${url}/health`).then((r) => r.text()),
  },
  {
    name: 'memory service',
    start: async (scratch, cli) => {
      const port = await freePort();
      return startCli({
        cli,
        name: 'memory',
        args: ['serve', 'memory', '--addr', `127.0.0.1:${port}`, '--kv-url', KV_URL, '--ollama-host', 'http://127.0.0.1:9'],
        port,
        env: { KV_PREFIX: `bench-rss:${process.pid}:`, MEMORY_INDEX_DIR: join(scratch, 'memory-index') },
        anyAnswer: true,
      });
    },
    request: (url) => fetch(`${url}/health`).then((r) => r.text()),
  },
];

interface Reading {
  /** 1.5 s after the service answered. */
  idle: number;
  /** After SETTLED_MS of idleness. */
  settled: number;
  afterRequest: number;
}

/** Starts, waits for it to settle, reads its idle RSS twice, makes one request, reads it again, stops. */
async function measure(start: () => Promise<ChildService>, request: (url: string) => Promise<unknown>): Promise<Reading> {
  const service = await start();
  try {
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const idle = rssMb(service.process.pid);
    await new Promise((r) => setTimeout(r, Math.max(0, SETTLED_MS - SETTLE_MS)));
    const settled = rssMb(service.process.pid);
    await request(service.url).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 200));
    return { idle, settled, afterRequest: rssMb(service.process.pid) };
  } finally {
    await service.stop();
  }
}

const scratch = await mkdtemp(join(tmpdir(), 'bench-idle-rss-'));
try {
  console.log(
    `idle RSS of each service vs a bare node:http server, ${ROUNDS} interleaved rounds (node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  );
  const bare: Reading[] = [];
  const rows = SERVICES.flatMap((service) => [
    { service, name: service.name, cli: undefined as string | undefined },
    ...(BEFORE_CLI ? [{ service, name: `${service.name} (before)`, cli: BEFORE_CLI }] : []),
  ]);
  const runs = rows.map(() => [] as Reading[]);
  for (let round = 0; round < ROUNDS; round++) {
    bare.push(await measure(startBare, async () => undefined));
    for (const [i, { service, cli }] of rows.entries()) {
      const dir = await mkdtemp(join(scratch, 'round-'));
      runs[i]!.push(await measure(() => service.start(dir, cli), service.request));
    }
  }
  const mb = (values: number[]): string => `${median(values).toFixed(0).padStart(4)} MB`;
  console.log(`${'bare node:http'.padEnd(34)} ${mb(bare.map((b) => b.idle))}   settled ${mb(bare.map((b) => b.settled))}`);
  console.log(`${''.padEnd(34)} 1.5 s after start${''.padEnd(32)}after ${SETTLED_MS / 1000} s idle`);
  for (const [i, service] of rows.entries()) {
    const list = runs[i]!;
    const early = list.map((r, round) => r.idle / bare[round]!.idle);
    const settled = list.map((r, round) => r.settled / bare[round]!.settled);
    console.log(
      `${service.name.padEnd(34)} ${mb(list.map((r) => r.idle))}  ${ratioSummary(early).padEnd(24)} ${targetMark(median(early), TARGET, 'at most')}` +
        `   ${mb(list.map((r) => r.settled))}  ${ratioSummary(settled).padEnd(24)} ${targetMark(median(settled), TARGET, 'at most')}` +
        `   after one request ${mb(list.map((r) => r.afterRequest))}`,
    );
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}
