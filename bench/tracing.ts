/**
 * Benchmark of what tracing costs on the hot path, tracing on vs off in the
 * same run:
 *
 *  - the front door: `POST /stream` to the example agent's echo task
 *    (`framework-cli serve agent`), under load (autocannon);
 *  - an A2A hop: `agentConnection`, signed, to the example executor
 *    (`serve agent --example executor --a2a-only`), sequential calls.
 *
 * Each service runs twice, in processes of its own: once with no OTEL_*
 * variable (no SDK loaded), once exporting every span by OTLP/HTTP to a local
 * collector (our own receiver, in a child process) by the standard variables
 * only (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL=http/json),
 * every request sampled. Rounds are interleaved (off, on, then on, off ...),
 * and each figure is the median of its per-round ratios on/off: requests/s
 * and server CPU time per request for the front door, p50 latency and the
 * executor's CPU time per call for the hop. Printed with the target (tracing
 * costs ≤ 10% on the hot path).
 *
 * Then the steadier figure on a busy machine: the example agent's
 * `route_to_task` (a router task, the echo task and its two steps: 4 spans)
 * run in process, in child processes of their own (one with no SDK, one
 * exporting every span as above), CPU time per run, interleaved rounds.
 *
 *   npm run bench:tracing   (BENCH_SECONDS=3 BENCH_ROUNDS=6 BENCH_CONNECTIONS=16 BENCH_HOP_CALLS=1000 BENCH_HOP_WARMUP=1000 by default;
 *                            BENCH_TRACES_SAMPLER=always_off: the SDK loaded but nothing recorded;
 *                            BENCH_TRACES_SAMPLER=parentbased_traceidratio BENCH_TRACES_SAMPLER_ARG=0.1: one request in ten)
 *
 * Last, the floor: the same 4 spans through the official SDK alone (started and
 * ended with explicit parents, dropped by the exporter: none of the toolkit's
 * code, no context manager, nothing encoded), as a share of the task's CPU with
 * tracing off. No cost of tracing these spans can go below it.
 *
 * The hop is measured warm: each executor first answers BENCH_HOP_WARMUP
 * calls (its CPU per call still falls by half over its first ~2,000 calls as
 * the JIT settles; with 20 warm-up calls and 100 per round, the rows until 5
 * Dec measured mostly that), and its CPU is read from /proc in 10 ms ticks,
 * so a round needs about a thousand calls for the figure to mean anything.
 *
 * BENCH_TRACING_BREAKDOWN=1 adds two more executors of this build to the
 * hop's rounds, to say where its cost is: tracing off with only an
 * `AsyncLocalStorage` entered (the context manager's promise hooks, no SDK:
 * support/tracing-hooks-only.ts) and tracing on with no span exported
 * (support/tracing-no-export.ts); each printed as CPU and p50 against off.
 *
 * BENCH_TRACING_BEFORE_DIST=<another build's dist> (e.g. /work/base/dist)
 * runs that build's services too, off and on, in the same interleaved rounds
 * (its `cli/bin/run.js` beside that dist; its own bench/tracing.js for the
 * in-process rows), and prints its rows beside this build's: a before/after
 * in one run.
 *
 * Prints figures; asserts nothing.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { loadAgentCard } from '../runtime/a2a/agent-card.js';
import { KeyRing } from '../runtime/a2a/signing/key-ring.js';
import { createSigningKey, decodeSecret, generateSecret } from '../runtime/a2a/signing/signing-key.js';
import { getValidator } from '../runtime/a2a/validator.js';
import { startTraceReceiver } from '../runtime/telemetry/trace-receiver.js';
import { TraceStore } from '../runtime/telemetry/trace-store.js';
import { hop, startExecutor } from './support/a2a-hop.js';
import { cpuSeconds, freePort, startCli, type ChildService } from './support/child-services.js';
import { median, ratioSummary, targetMark } from './support/ratios.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const HOP_CALLS = Number(process.env.BENCH_HOP_CALLS ?? 1000);
const HOP_WARMUP = Number(process.env.BENCH_HOP_WARMUP ?? 1000);
/** Another build's dist, run beside this one (before/after in the same rounds). */
const BEFORE_DIST = process.env.BENCH_TRACING_BEFORE_DIST;
/** Adds the hop's breakdown executors (hooks only; spans without export). */
const BREAKDOWN = process.env.BENCH_TRACING_BREAKDOWN === '1';
/** `always_off` measures the SDK's presence without recording or exporting (where the cost is). */
const SAMPLER = process.env.BENCH_TRACES_SAMPLER ?? 'always_on';
/** OTEL_TRACES_SAMPLER_ARG for the samplers that take one (a ratio). */
const SAMPLER_ARG = process.env.BENCH_TRACES_SAMPLER_ARG;
const PLANNER_CARD = fileURLToPath(new URL('../../agent_cards/planner.json', import.meta.url));
/** The target: tracing costs at most 10% on the hot path. */
const TARGET = 0.1;
/** Task runs per round in process, and how many at a time. */
const TASK_RUNS = Number(process.env.BENCH_TASK_RUNS ?? 10_000);
const TASK_CONCURRENCY = 8;

/** Our receiver in a child process (so its work is not this process's), storing into a scratch directory; resolves to its base URL. */
function startCollector(): Promise<{ url: string; stop(): void }> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['collector'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('message', (url) => resolve({ url: String(url), stop: () => child.kill('SIGTERM') }));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the collector exited with ${String(code)}`)));
  });
}

async function runCollector(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fw-bench-traces-'));
  const receiver = await startTraceReceiver({ store: new TraceStore({ root: dir }) });
  process.once('SIGTERM', () => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
  process.send?.(receiver.url);
}

/**
 * Child mode `task-runs`: the example agent's `route_to_task` in this process,
 * with the SDK started when the OTEL_* variables say so; sends the CPU µs per run
 * (after a warm-up) to the parent.
 */
async function runTasks(): Promise<void> {
  const { startTelemetry } = await import('../runtime/telemetry/start-telemetry.js');
  const { createHelloAgent } = await import('../runtime/examples/hello-agent.js');
  const telemetry = await startTelemetry({ env: process.env, defaultServiceName: 'bench' });
  const { core } = createHelloAgent({ env: {} });
  const once = async (i: number) => {
    let responses = 0;
    for await (const _response of core.executeTask('route_to_task', { query: 'bench', contextId: `bench-${i % 50}` })) responses++;
    if (responses < 3) throw new Error(`route_to_task answered ${responses} responses`);
  };
  const runs = async (count: number) => {
    for (let i = 0; i < count; i += TASK_CONCURRENCY) await Promise.all(Array.from({ length: Math.min(TASK_CONCURRENCY, count - i) }, (_, j) => once(i + j)));
  };
  await runs(TASK_RUNS / 2);
  const cpu0 = process.cpuUsage();
  await runs(TASK_RUNS);
  const cpu = process.cpuUsage(cpu0);
  await telemetry?.shutdown();
  process.send?.((cpu.user + cpu.system) / TASK_RUNS, () => process.exit(0));
}

/**
 * Child mode `sdk-floor`: what the official SDK alone costs for the same 4 spans, none of the toolkit's code
 * involved: a router span, a task span and two step spans started with explicit parents (no context manager),
 * each with one attribute, ended, and handed to a BatchSpanProcessor whose exporter drops them (nothing encoded,
 * nothing sent). Sends the CPU µs per run to the parent: the floor under any cost the toolkit's tracing can reach.
 */
async function runSdkFloor(): Promise<void> {
  const [{ BasicTracerProvider, BatchSpanProcessor }, { context, trace }] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/api'),
  ]);
  const exporter = { export: (_spans: unknown, done: (result: { code: number }) => void) => done({ code: 0 }), shutdown: async () => {} };
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter, { maxQueueSize: 65_536, scheduledDelayMillis: 50 })] });
  const tracer = provider.getTracer('floor');
  const runs = (count: number) => {
    for (let i = 0; i < count; i++) {
      const router = tracer.startSpan('task route_to_task', { attributes: { 'task.name': 'route_to_task' } }, context.active());
      const inRouter = trace.setSpan(context.active(), router);
      const task = tracer.startSpan('task echo', { attributes: { 'task.name': 'echo' } }, inRouter);
      const inTask = trace.setSpan(inRouter, task);
      tracer.startSpan('step a', { attributes: { 'step.name': 'a' } }, inTask).end();
      tracer.startSpan('step b', { attributes: { 'step.name': 'b' } }, inTask).end();
      task.end();
      router.end();
    }
  };
  runs(TASK_RUNS / 2);
  await provider.forceFlush();
  const cpu0 = process.cpuUsage();
  runs(TASK_RUNS);
  await provider.forceFlush();
  const cpu = process.cpuUsage(cpu0);
  await provider.shutdown();
  process.send?.((cpu.user + cpu.system) / TASK_RUNS, () => process.exit(0));
}

/**
 * CPU µs per in-process task run (or, with `mode` `sdk-floor`, per run of the SDK alone) in a child process with `env`
 * (no OTEL_* variable: no SDK); `script`: another build's bench/tracing.js.
 */
function taskRunCpu(env: Record<string, string>, mode: 'task-runs' | 'sdk-floor' = 'task-runs', script = fileURLToPath(import.meta.url)): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = fork(script, [mode], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'error', ...env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (us) => resolve(Number(us)));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`the ${mode} child exited with ${String(code)}`))));
  });
}

/** A build whose services the rounds run: this one, and with BENCH_TRACING_BEFORE_DIST another. */
interface Build {
  /** '' for this build, 'BEFORE' for the other. */
  label: string;
  /** Its `cli/bin/run.js` (undefined: this build's). */
  cli?: string;
  /** Its bench/tracing.js, for the in-process rows. */
  script: string;
}

interface Pair<T> {
  off: T;
  on: T;
}

/** Front door figures of one round: requests/s and the server's CPU µs per request. */
async function load(service: ChildService): Promise<{ perSecond: number; cpuUs: number }> {
  const cpu0 = cpuSeconds(service.process.pid);
  const result = await autocannon({
    url: `${service.url}/stream`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'bench' }),
    connections: CONNECTIONS,
    duration: SECONDS,
  });
  if (result.errors + result.non2xx > 0) throw new Error(`${service.name}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  const cpu = cpuSeconds(service.process.pid) - cpu0;
  return { perSecond: result.requests.average, cpuUs: (cpu * 1e6) / Math.max(1, result.requests.total) };
}

/** Hop figures of one round: p50 latency (ms) and the executor's CPU ms per call. */
async function hops(call: () => Promise<void>, executor: ChildService): Promise<{ p50: number; cpuMs: number }> {
  const samples: number[] = [];
  const cpu0 = cpuSeconds(executor.process.pid);
  for (let i = 0; i < HOP_CALLS; i++) {
    const t0 = process.hrtime.bigint();
    await call();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return { p50: median(samples), cpuMs: ((cpuSeconds(executor.process.pid) - cpu0) * 1000) / HOP_CALLS };
}

/**
 * Runs `measure` on off and on of every build in each round, the order reversed every round; one pair per build
 * and round.
 */
async function interleaved<T>(builds: number, measure: (side: 'off' | 'on', build: number) => Promise<T>): Promise<Pair<T>[][]> {
  const rounds: Pair<T>[][] = Array.from({ length: builds }, () => []);
  const sides = Array.from({ length: builds }, (_, build) => (['off', 'on'] as const).map((side) => ({ side, build }))).flat();
  for (let round = 0; round < ROUNDS; round++) {
    const got: Partial<Pair<T>>[] = Array.from({ length: builds }, () => ({}));
    for (const { side, build } of round % 2 === 0 ? sides : [...sides].reverse()) got[build]![side] = await measure(side, build);
    for (let build = 0; build < builds; build++) rounds[build]!.push(got[build] as Pair<T>);
  }
  return rounds;
}

/** `+3.1% (…)`: the cost of tracing, from the per-round ratios on/off of a figure where more is worse. */
function costLine(label: string, ratios: number[], kind: 'cost' | 'loss'): string {
  const cost = kind === 'cost' ? median(ratios) - 1 : 1 - median(ratios);
  return `${label.padEnd(44)} ${(cost * 100).toFixed(1).padStart(5)}%  (on/off ${ratioSummary(ratios, 3)})  ${targetMark(cost * 100, TARGET * 100, 'at most', '%')}`;
}

async function main(): Promise<void> {
  if (process.argv[2] === 'collector') return runCollector();
  if (process.argv[2] === 'task-runs') return runTasks();
  if (process.argv[2] === 'sdk-floor') return runSdkFloor();
  const builds: Build[] = [{ label: '', script: fileURLToPath(import.meta.url) }];
  if (BEFORE_DIST) builds.push({ label: 'BEFORE', cli: join(BEFORE_DIST, '../cli/bin/run.js'), script: join(BEFORE_DIST, 'bench/tracing.js') });
  const collector = await startCollector();
  // Every span exported, as a user's backend would get them: the standard variables only, every request sampled.
  const tracing = {
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_TRACES_SAMPLER: SAMPLER,
    ...(SAMPLER_ARG === undefined ? {} : { OTEL_TRACES_SAMPLER_ARG: SAMPLER_ARG }),
  };
  const secret = generateSecret();
  const keysJson = JSON.stringify({ keys: [{ id: 'planner-1', agent: 'planner', secret }] });
  const keys = new KeyRing([createSigningKey({ id: 'planner-1', agent: 'planner', secret: decodeSecret(secret)! })]);
  const signed = { A2A_KEYS: keysJson, A2A_VALIDATION_MODE: 'disabled' };
  const started: ChildService[] = [];
  const agent = async (env: Record<string, string>, build: Build) => {
    const port = await freePort();
    const service = await startCli({
      name: `${build.label} echo agent`.trim(),
      args: ['serve', 'agent', '--port', String(port)],
      port,
      env,
      ...(build.cli === undefined ? {} : { cli: build.cli }),
    });
    started.push(service);
    return service;
  };
  const executor = async (env: Record<string, string>, build: Build, preload?: string) => {
    const running = await startExecutor(env, {
      ...(build.cli === undefined ? {} : { cli: build.cli }),
      ...(preload === undefined ? {} : { execArgv: ['--import', fileURLToPath(new URL(`./support/${preload}.js`, import.meta.url))] }),
    });
    started.push(running.service);
    return running;
  };
  try {
    const agents: Pair<ChildService>[] = [];
    const executors: Pair<Awaited<ReturnType<typeof executor>>>[] = [];
    for (const build of builds) {
      agents.push({ off: await agent({}, build), on: await agent(tracing, build) });
      executors.push({ off: await executor(signed, build), on: await executor({ ...signed, ...tracing }, build) });
    }
    const breakdown = BREAKDOWN
      ? { hooks: await executor(signed, builds[0]!, 'tracing-hooks-only'), spans: await executor({ ...signed, ...tracing }, builds[0]!, 'tracing-no-export') }
      : undefined;
    const [planner] = await loadAgentCard(PLANNER_CARD);
    const validator = getValidator({ env: { A2A_VALIDATION_MODE: 'disabled' } });
    const call = (side: 'off' | 'on', build: number) => () => hop(planner, executors[build]![side].card, { validator, keys });

    console.log(
      `tracing cost: tracing off vs on (OTLP/HTTP to a local collector, sampler ${SAMPLER}${SAMPLER_ARG === undefined ? '' : ` ${SAMPLER_ARG}`}), ${ROUNDS} interleaved rounds` +
        `${BEFORE_DIST ? `, this build and BEFORE (${BEFORE_DIST}) in the same rounds` : ''} (node ${process.version}, load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')})`,
    );
    // Warm-up: JIT, connection pools, the SDK's first export; the executors until their CPU per call has settled.
    for (const pair of agents) for (const side of ['off', 'on'] as const) await load(pair[side]);
    for (let build = 0; build < builds.length; build++)
      for (const side of ['off', 'on'] as const) for (let i = 0; i < HOP_WARMUP; i++) await call(side, build)();
    const prefix = (build: number) => (builds[build]!.label ? `${builds[build]!.label} ` : '');

    const door = await interleaved(builds.length, (side, build) => load(agents[build]![side]));
    console.log(`front door: POST /stream (echo task), ${CONNECTIONS} connections, ${SECONDS} s per side per round`);
    for (const [build, rounds] of door.entries()) {
      console.log(
        `  ${prefix(build)}requests/s off ${median(rounds.map((r) => r.off.perSecond)).toFixed(0)}, on ${median(rounds.map((r) => r.on.perSecond)).toFixed(0)}; ` +
          `server cpu off ${median(rounds.map((r) => r.off.cpuUs)).toFixed(0)} µs/request, on ${median(rounds.map((r) => r.on.cpuUs)).toFixed(0)} µs/request`,
      );
      console.log(
        costLine(
          `  ${prefix(build)}throughput lost to tracing`,
          rounds.map((r) => r.on.perSecond / r.off.perSecond),
          'loss',
        ),
      );
      console.log(
        costLine(
          `  ${prefix(build)}server cpu added by tracing`,
          rounds.map((r) => r.on.cpuUs / r.off.cpuUs),
          'cost',
        ),
      );
    }

    const hop2 = await interleaved(builds.length, (side, build) => hops(call(side, build), executors[build]![side].service));
    console.log(
      `A2A hop: agentConnection, signed, to the example executor, ${HOP_CALLS} sequential calls per side per round (after ${HOP_WARMUP} warm-up calls)`,
    );
    for (const [build, rounds] of hop2.entries()) {
      console.log(
        `  ${prefix(build)}p50 off ${median(rounds.map((r) => r.off.p50)).toFixed(2)} ms, on ${median(rounds.map((r) => r.on.p50)).toFixed(2)} ms; ` +
          `executor cpu off ${median(rounds.map((r) => r.off.cpuMs)).toFixed(3)} ms/call, on ${median(rounds.map((r) => r.on.cpuMs)).toFixed(3)} ms/call`,
      );
      console.log(
        costLine(
          `  ${prefix(build)}latency added by tracing (p50)`,
          rounds.map((r) => r.on.p50 / r.off.p50),
          'cost',
        ),
      );
      console.log(
        costLine(
          `  ${prefix(build)}executor cpu added by tracing`,
          rounds.map((r) => r.on.cpuMs / r.off.cpuMs),
          'cost',
        ),
      );
    }
    if (breakdown) {
      // Off, hooks only, spans without export, on: this build's four executors in the same interleaved rounds.
      const parts = [executors[0]!.off, breakdown.hooks, breakdown.spans, executors[0]!.on];
      // Warmed here, all four alike (the two breakdown executors had answered nothing yet).
      for (const part of parts) for (let i = 0; i < HOP_WARMUP; i++) await hop(planner, part.card, { validator, keys });
      const rounds: { p50: number; cpuMs: number }[][] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const got: { p50: number; cpuMs: number }[] = [];
        for (const index of round % 2 === 0 ? [0, 1, 2, 3] : [3, 2, 1, 0])
          got[index] = await hops(() => hop(planner, parts[index]!.card, { validator, keys }), parts[index]!.service);
        rounds.push(got);
      }
      console.log(`  where the hop's cost is (this build; each against off in the same ${ROUNDS} rounds):`);
      const labels = ['off', "the context manager's hooks alone (no SDK)", 'spans recorded, none exported', 'all of tracing'];
      for (let index = 1; index < 4; index++) {
        const cpu = median(rounds.map((r) => r[index]!.cpuMs / r[0]!.cpuMs));
        const p50 = median(rounds.map((r) => r[index]!.p50 / r[0]!.p50));
        console.log(`    ${labels[index]!.padEnd(46)} executor cpu +${((cpu - 1) * 100).toFixed(1)}%, p50 +${((p50 - 1) * 100).toFixed(1)}%`);
      }
    }
    // Metrics export off: it is once a minute, and not what this row measures.
    const tasks = await interleaved(builds.length, (side, build) =>
      taskRunCpu(side === 'on' ? { ...tracing, OTEL_METRICS_EXPORTER: 'none' } : {}, 'task-runs', builds[build]!.script),
    );
    console.log(`in process: route_to_task (router, echo task, 2 steps: 4 spans), ${TASK_RUNS} runs, ${TASK_CONCURRENCY} at a time, per side per round`);
    for (const [build, rounds] of tasks.entries()) {
      console.log(`  ${prefix(build)}cpu off ${median(rounds.map((r) => r.off)).toFixed(1)} µs/run, on ${median(rounds.map((r) => r.on)).toFixed(1)} µs/run`);
      console.log(
        costLine(
          `  ${prefix(build)}task cpu added by tracing`,
          rounds.map((r) => r.on / r.off),
          'cost',
        ),
      );
    }
    // The floor: the SDK alone for the same 4 spans, in the rounds of the task's off side (same process shape).
    const [floor] = await interleaved(1, (side) => (side === 'off' ? taskRunCpu({}) : taskRunCpu({}, 'sdk-floor')));
    console.log(`the SDK alone: the same 4 spans started and ended by the official SDK, dropped by the exporter (no toolkit code, no context manager)`);
    console.log(`  cpu ${median(floor!.map((r) => r.on)).toFixed(1)} µs per 4 spans, the task off ${median(floor!.map((r) => r.off)).toFixed(1)} µs/run`);
    console.log(
      costLine(
        '  floor of the task cpu tracing can add',
        floor!.map((r) => 1 + r.on / r.off),
        'cost',
      ),
    );
    console.log(
      `load average at the end ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    for (const service of started.reverse()) await service.stop();
    collector.stop();
  }
}

await main();
