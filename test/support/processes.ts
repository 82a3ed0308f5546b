import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { answers, freePort, waitFor } from './net.js';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = fileURLToPath(new URL('../../cli/bin/run.js', import.meta.url));

/** A child service (policy engine, Guardian, agent) started from the compiled CLI. */
export interface Service {
  readonly name: string;
  readonly url: string;
  readonly port: number;
  readonly process: ChildProcess;
  /** Everything it wrote on stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then SIGKILL after 5 s; resolves once the process has closed. */
  stop(): Promise<void>;
}

/**
 * Starts `node cli/bin/run.js <args>` (or `<program> <args>`: an oracle such
 * as a third-party backend) in `cwd`, default the repository, with only PATH,
 * HOME, LOG_LEVEL and `env` in its environment, and waits until
 * `GET <url><healthPath>` (default `/health`) answers 2xx. The process is
 * stopped again when it does not get healthy.
 */
export async function startService(options: {
  name: string;
  args: readonly string[];
  port: number;
  env?: Record<string, string>;
  timeoutMs?: number;
  cwd?: string;
  program?: string;
  healthPath?: string;
}): Promise<Service> {
  const [program, args] = options.program ? [options.program, options.args] : [process.execPath, [CLI, ...options.args]];
  const child = spawn(program, args, {
    cwd: options.cwd ?? REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    shell: false,
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const url = `http://127.0.0.1:${options.port}`;
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
        kill.unref();
        child.kill('SIGTERM');
        await closed;
        clearTimeout(kill);
      } else {
        await closed;
      }
    })());
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${options.name} exited early:\n${output}`);
        return answers(`${url}${options.healthPath ?? '/health'}`);
      },
      `${options.name} on ${url}`,
      options.timeoutMs ?? 20_000,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { name: options.name, url, port: options.port, process: child, output: () => output, stop };
}

/** A `framework-cli serve agent` child process. */
export type ChildAgent = Service;

/**
 * Starts `framework-cli serve agent` as a real child process (the compiled
 * CLI: run `npm run build` first) on a free port and waits until GET /health answers.
 */
export async function startAgentProcess(options: { env?: Record<string, string>; args?: string[] } = {}): Promise<ChildAgent> {
  const port = await freePort();
  return startService({
    name: 'agent',
    args: ['serve', 'agent', '--port', String(port), ...(options.args ?? [])],
    port,
    ...(options.env ? { env: options.env } : {}),
  });
}
