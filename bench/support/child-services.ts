/**
 * Child processes for figure scripts: `framework-cli` services and a
 * `redis-server`, each on a free port, stopped on exit and on a signal.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CLI = fileURLToPath(new URL('../../../cli/bin/run.js', import.meta.url));

const children = new Set<ChildProcess>();
function killAll(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
process.once('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    killAll();
    process.exit(130);
  });

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Resident set size of a process in MB (Linux /proc), or NaN. */
export function rssMb(pid: number | undefined): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc. */
export function cpuSeconds(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100 Hz)
}

export interface ChildService {
  readonly name: string;
  readonly url: string;
  readonly process: ChildProcess;
  alive(): boolean;
  output(): string;
  stop(): Promise<void>;
}

async function healthy(url: string, anyAnswer = false): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return anyAnswer || response.ok;
  } catch {
    return false;
  }
}

/** `node cli/bin/run.js ...args` with `env`, ready when GET `${url}${healthPath}` answers 2xx (generous: busy machines start slowly). */
export async function startCli(options: {
  name: string;
  args: string[];
  port: number;
  env?: Record<string, string>;
  healthPath?: string;
  /** Ready once the health path answers at all, 503 (degraded: a dependency not running) included. */
  anyAnswer?: boolean;
  /** Another build's `cli/bin/run.js` (a before/after comparison); default this tree's. */
  cli?: string;
  /** Node options before the script, e.g. `--cpu-prof` (Node 20 refuses it in NODE_OPTIONS). */
  execArgv?: string[];
}): Promise<ChildService> {
  const child = spawn(process.execPath, [...(options.execArgv ?? []), options.cli ?? CLI, ...options.args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'error', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
  const url = `http://127.0.0.1:${options.port}`;
  const alive = () => child.exitCode === null && child.signalCode === null;
  const deadline = Date.now() + 120_000;
  while (!(await healthy(`${url}${options.healthPath ?? '/health'}`, options.anyAnswer))) {
    if (!alive()) throw new Error(`${options.name} exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`${options.name} did not get healthy in 120 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name: options.name,
    url,
    process: child,
    alive,
    output: () => output,
    stop: async () => {
      if (!alive()) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
      children.delete(child);
    },
  };
}

/** A redis-server child; `persistent` keeps every acknowledged write on disk (appendfsync always). */
export class RedisChild {
  #child: ChildProcess | undefined;
  constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', this.dir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.add(child);
    this.#child = child;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 30_000);
      child.stdout?.on('data', (d: Buffer) => {
        output += d.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`redis-server exited (${String(code)}):\n${output}`)));
    });
    child.stdout?.resume();
    child.stderr?.resume();
  }

  /** SIGKILL, like a crash. */
  async kill(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
    children.delete(child);
  }
}
