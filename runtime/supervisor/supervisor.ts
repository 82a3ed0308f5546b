import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join, resolve } from 'node:path';
import type { z } from 'zod';
import { errorFields, silentLogger, type Logger } from '../core/logger.js';
import { RUN_DIR, ServiceSpecSchema, type ServiceSpec } from './project-file.js';
import { ServiceProcess, type ServiceExit } from './service-process.js';
import { projectKeyPrefix } from './project-key-prefix.js';
import { serviceEnv } from './service-env.js';
import { startOrder } from './start-order.js';
import { SupervisorError } from './supervisor-error.js';
import type { ServiceState, SupervisorEvent } from './supervisor-event.js';
import { waitForHealth } from './wait-for-health.js';
import type { Listening } from '../core/server/listen.js';
import { LOCAL_TRACES_VARIABLE } from '../telemetry/telemetry-config.js';
import { startTraceReceiver } from '../telemetry/trace-receiver.js';
import { TraceStore } from '../telemetry/trace-store.js';

/** A service as `project.json` may write it (defaults not yet applied). */
export type ServiceSpecInput = z.input<typeof ServiceSpecSchema>;

export interface SupervisorOptions {
  /** Project root: the services' working directory; logs go to `<root>/.framework/run/logs/<name>.log`. */
  root: string;
  services: readonly ServiceSpecInput[];
  /** Absolute path of `cli/bin/run.js`, run with this Node for services given by `args`. */
  cliPath: string;
  logger?: Logger;
  onEvent?: (event: SupervisorEvent) => void;
  /** How long a service may take to answer its health check (default 60 s; 180 s for `model`). */
  healthTimeoutMs?: number;
  /** Between SIGTERM and SIGKILL when stopping (default 5 s). */
  graceMs?: number;
  /** Waits before restarts 1, 2, 3… (default 0.5 s, 1 s, 2 s; the last repeats). */
  backoffMs?: readonly number[];
  /** Crashes within `crashWindowMs` after which the stack stops (default 3 within 60 s). */
  maxCrashes?: number;
  crashWindowMs?: number;
  /**
   * Keep the stack's recent traces for `framework-cli trace` (default true):
   * an OTLP receiver on a loopback port writes the services' spans to the
   * bounded store under `<root>/.framework/traces/`.
   */
  traces?: boolean;
}

/** A service as the supervisor sees it now. */
export interface ServiceStatus {
  name: string;
  kind: ServiceSpec['kind'];
  port: number;
  url: string;
  /** `url` + the service's health path. */
  healthUrl: string;
  log: string;
  pid: number | undefined;
  state: ServiceState;
  /** When its current process started (ms since the epoch). */
  startedAt: number | undefined;
  restarts: number;
}

/** Why a supervisor stopped: asked to, or gave up on a service. */
export type SupervisorOutcome = { reason: 'stopped' } | { reason: 'gave_up'; service: string; message: string; lastLines: string[] };

interface Entry {
  spec: ServiceSpec;
  url: string;
  log: string;
  state: ServiceState;
  proc?: ServiceProcess;
  stream?: WriteStream;
  crashes: number[];
  restarts: number;
  lastLines: string[];
  timer?: NodeJS.Timeout;
}

const LAST_LINES = 20;

/**
 * Starts a stack's services as child processes in dependency order, each
 * only once the ones before it answer their health check; restarts crashed
 * services with back-off and stops the whole stack after too many crashes;
 * stops in reverse order with SIGTERM then SIGKILL. Output goes to one log
 * file per service and to `onEvent` as `log` events. Every service gets the
 * project's own Redis key prefix (KV_PREFIX, see `projectKeyPrefix`) unless
 * its `env` sets one.
 *
 * @example
 * const supervisor = new Supervisor({ root, services: project.services, cliPath, onEvent: (e) => console.log(e) });
 * await supervisor.start(); // throws SupervisorError when a service gives up
 * process.once('SIGINT', () => void supervisor.stop());
 * const outcome = await supervisor.finished;
 */
export class Supervisor {
  /** Resolves once the stack has stopped, by `stop()` or after giving up on a service. */
  readonly finished: Promise<SupervisorOutcome>;
  readonly #options: SupervisorOptions;
  readonly #root: string;
  /** KV_PREFIX of every service unless its `env` sets one: the project's own (see project-key-prefix.ts). */
  readonly #keyPrefix: string;
  readonly #logger: Logger;
  readonly #entries: Entry[];
  #resolveFinished!: (outcome: SupervisorOutcome) => void;
  #started = false;
  #stopping = false;
  #stopped?: Promise<void>;
  #failure?: { service: string; message: string; lastLines: string[] };
  #traceReceiver?: Listening & { tracesUrl: string };
  readonly #killAll = () => {
    for (const entry of this.#entries) entry.proc?.signal('SIGKILL');
  };

  constructor(options: SupervisorOptions) {
    this.#options = options;
    this.#root = resolve(options.root);
    this.#keyPrefix = projectKeyPrefix({ root: this.#root });
    this.#logger = options.logger ?? silentLogger;
    const specs = options.services.map((service) => ServiceSpecSchema.parse(service));
    const logDir = join(this.#root, RUN_DIR, 'logs');
    this.#entries = startOrder({ services: specs }).map((spec) => ({
      spec,
      url: `http://127.0.0.1:${spec.port}`,
      log: join(logDir, `${spec.name}.log`),
      state: 'pending',
      crashes: [],
      restarts: 0,
      lastLines: [],
    }));
    this.finished = new Promise((resolveFinished) => (this.#resolveFinished = resolveFinished));
  }

  /** The services in start order, with their current process and state. */
  status(): ServiceStatus[] {
    return this.#entries.map((e) => ({
      name: e.spec.name,
      kind: e.spec.kind,
      port: e.spec.port,
      url: e.url,
      healthUrl: `${e.url}${e.spec.healthPath}`,
      log: e.log,
      pid: e.proc?.running ? e.proc.pid : undefined,
      state: e.state,
      startedAt: e.proc?.running ? e.proc.startedAt : undefined,
      restarts: e.restarts,
    }));
  }

  /**
   * Starts every service in order and resolves once all are healthy (an
   * `optional` one that stays unhealthy is skipped with a warning). Throws
   * `SupervisorError` after stopping everything when a service gives up or
   * `stop()` is called first.
   */
  async start(): Promise<void> {
    if (this.#started) throw new SupervisorError({ code: 'supervisor_failed', message: 'This supervisor was started already.' });
    this.#started = true;
    mkdirSync(join(this.#root, RUN_DIR, 'logs'), { recursive: true });
    process.once('exit', this.#killAll);
    if (this.#options.traces !== false) this.#traceReceiver = await startTraceReceiver({ store: new TraceStore({ root: this.#root }), logger: this.#logger });
    for (const entry of this.#entries) {
      if (this.#stopping) break;
      entry.stream = createWriteStream(entry.log, { flags: 'w' });
      entry.stream.on('error', (error) => this.#logger.warn(`cannot write ${entry.log}`, errorFields(error)));
      this.#spawn(entry, 1);
      const timeoutMs = this.#options.healthTimeoutMs ?? (entry.spec.kind === 'model' ? 180_000 : 60_000);
      const healthUrl = `${entry.url}${entry.spec.healthPath}`;
      if (await waitForHealth({ url: healthUrl, timeoutMs, shouldStop: () => this.#stopping })) {
        this.#markHealthy(entry);
      } else if (!this.#stopping && entry.spec.optional) {
        this.#logger.warn(`${entry.spec.name} is not healthy after ${timeoutMs / 1000} s; it is optional, so the stack goes on`, { url: healthUrl });
      } else if (!this.#stopping) {
        this.#giveUp(entry, `did not answer ${healthUrl} with 2xx within ${timeoutMs / 1000} s`);
      }
    }
    if (this.#stopping) {
      await this.stop();
      const failure = this.#failure;
      if (failure) throw new SupervisorError({ code: 'service_gave_up', message: failure.message, service: failure.service, lastLines: failure.lastLines });
      throw new SupervisorError({ code: 'supervisor_stopped', message: 'The stack was stopped before every service was healthy.' });
    }
  }

  /** Stops every service in reverse start order (SIGTERM, SIGKILL after the grace period); safe to call twice. */
  stop(): Promise<void> {
    return (this.#stopped ??= this.#stopAll());
  }

  async #stopAll(): Promise<void> {
    this.#stopping = true;
    for (const entry of this.#entries) clearTimeout(entry.timer);
    for (const entry of [...this.#entries].reverse()) {
      if (entry.proc === undefined) continue;
      await entry.proc.stop({ graceMs: this.#options.graceMs ?? 5_000 });
      if (entry.state !== 'failed') entry.state = 'stopped';
      this.#emit({ type: 'stopped', service: entry.spec.name });
    }
    await Promise.all(this.#entries.map((entry) => new Promise<void>((done) => (entry.stream ? entry.stream.end(done) : done()))));
    // After the services: their last spans are flushed to it as they stop.
    await this.#traceReceiver?.close();
    process.off('exit', this.#killAll);
    const failure = this.#failure;
    this.#resolveFinished(failure ? { reason: 'gave_up', ...failure } : { reason: 'stopped' });
  }

  #spawn(entry: Entry, attempt: number): ServiceProcess {
    const { spec } = entry;
    entry.state = attempt === 1 ? 'starting' : 'restarting';
    this.#emit({ type: 'starting', service: spec.name, port: spec.port, attempt });
    const [file, ...args] = spec.command ?? [process.execPath, this.#options.cliPath, ...(spec.args ?? [])];
    const proc = new ServiceProcess({
      file: file!,
      args,
      cwd: this.#root,
      // Projects sharing a Redis never share keys: each gets its own prefix unless the service's env names one.
      // Spans go to the stack's receiver (and to the user's OTLP backend when OTEL_* says so), named after the service.
      env: serviceEnv({
        env: {
          KV_PREFIX: this.#keyPrefix,
          OTEL_SERVICE_NAME: spec.name,
          ...(this.#traceReceiver ? { [LOCAL_TRACES_VARIABLE]: this.#traceReceiver.tracesUrl } : {}),
          ...spec.env,
        },
      }),
      onLine: (stream, line) => this.#onLine(entry, stream, line),
    });
    entry.proc = proc;
    void proc.exited.then((exit) => this.#onExit(entry, proc, exit));
    return proc;
  }

  #onLine(entry: Entry, stream: 'stdout' | 'stderr', line: string): void {
    entry.lastLines.push(line);
    if (entry.lastLines.length > LAST_LINES) entry.lastLines.shift();
    if (entry.stream && !entry.stream.writableEnded) entry.stream.write(`${line}\n`);
    this.#emit({ type: 'log', service: entry.spec.name, stream, line });
  }

  #markHealthy(entry: Entry): void {
    if (entry.state === 'healthy' || this.#stopping) return;
    entry.state = 'healthy';
    this.#emit({ type: 'healthy', service: entry.spec.name, url: entry.url, pid: entry.proc?.pid });
  }

  #onExit(entry: Entry, proc: ServiceProcess, exit: ServiceExit): void {
    if (this.#stopping || entry.proc !== proc) return;
    const { spec } = entry;
    const now = Date.now();
    entry.crashes = entry.crashes.filter((time) => now - time < (this.#options.crashWindowMs ?? 60_000));
    entry.crashes.push(now);
    if (exit.error) this.#onLine(entry, 'stderr', exit.error);
    this.#emit({ type: 'crashed', service: spec.name, exitCode: exit.exitCode, signal: exit.signal, crashes: entry.crashes.length });
    const how = exit.error ?? (exit.signal ? `signal ${exit.signal}` : `exit code ${String(exit.exitCode)}`);
    if (entry.crashes.length >= (this.#options.maxCrashes ?? 3)) {
      this.#giveUp(entry, `crashed ${entry.crashes.length} times within a minute (last: ${how})`);
      return;
    }
    const backoff = this.#options.backoffMs ?? [500, 1_000, 2_000];
    const delayMs = backoff[Math.min(entry.crashes.length - 1, backoff.length - 1)] ?? 1_000;
    entry.state = 'restarting';
    this.#logger.warn(`${spec.name} stopped unexpectedly (${how}); restarting in ${delayMs} ms`);
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      if (this.#stopping) return;
      entry.restarts += 1;
      const next = this.#spawn(entry, entry.restarts + 1);
      this.#emit({ type: 'restarted', service: spec.name, pid: next.pid, attempt: entry.restarts + 1, delayMs });
      void this.#watchHealth(entry, next);
    }, delayMs);
  }

  /** After a restart: reports `healthy` again once the new process answers. */
  async #watchHealth(entry: Entry, proc: ServiceProcess): Promise<void> {
    const timeoutMs = this.#options.healthTimeoutMs ?? (entry.spec.kind === 'model' ? 180_000 : 60_000);
    const healthy = await waitForHealth({ url: `${entry.url}${entry.spec.healthPath}`, timeoutMs, shouldStop: () => this.#stopping || entry.proc !== proc });
    if (healthy && entry.proc === proc) this.#markHealthy(entry);
  }

  #giveUp(entry: Entry, reason: string): void {
    if (this.#failure) return;
    entry.state = 'failed';
    const message = `${entry.spec.name} ${reason}; the stack was stopped.`;
    this.#failure = { service: entry.spec.name, message, lastLines: [...entry.lastLines] };
    this.#logger.error(message);
    this.#emit({ type: 'gave_up', service: entry.spec.name, reason, lastLines: [...entry.lastLines] });
    void this.stop();
  }

  #emit(event: SupervisorEvent): void {
    try {
      this.#options.onEvent?.(event);
    } catch (error) {
      this.#logger.warn('an onEvent listener threw', errorFields(error));
    }
  }
}
