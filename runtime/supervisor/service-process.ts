import type { Readable } from 'node:stream';
import { execa } from 'execa';

/** How a service process ended. `error` is set when it could not be spawned at all. */
export interface ServiceExit {
  exitCode: number | null;
  signal: string | null;
  error?: string;
}

/** Longest line kept whole; longer output is cut into lines of this size. */
const MAX_LINE = 64 * 1024;

/**
 * One running process of a service: spawned with execa (`shell: false`, only
 * the given environment, its own process group so that a terminal's Ctrl-C
 * reaches the supervisor only), its output split into lines for `onLine`.
 * `exited` resolves once the process has closed and all its output arrived.
 *
 * @example
 * const proc = new ServiceProcess({ file: process.execPath, args: [cliPath, 'policy', 'serve'], cwd: root, env, onLine: (stream, line) => console.log(line) });
 * await proc.stop({ graceMs: 5_000 });
 */
export class ServiceProcess {
  readonly pid: number | undefined;
  readonly exited: Promise<ServiceExit>;
  readonly startedAt = Date.now();
  #running = true;
  readonly #kill: (signal: NodeJS.Signals) => void;

  constructor(options: {
    file: string;
    args: readonly string[];
    cwd: string;
    env: Readonly<Record<string, string>>;
    onLine: (stream: 'stdout' | 'stderr', line: string) => void;
  }) {
    const child = execa(options.file, options.args, {
      cwd: options.cwd,
      env: options.env,
      extendEnv: false,
      shell: false,
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      buffer: false,
      reject: false,
      detached: process.platform !== 'win32',
      forceKillAfterDelay: false,
      windowsHide: true,
    });
    this.pid = child.pid;
    this.#kill = (signal) => {
      if (process.platform !== 'win32' && child.pid !== undefined) {
        try {
          process.kill(-child.pid, signal);
          return;
        } catch {
          // The group is gone already; fall through to the process itself.
        }
      }
      child.kill(signal);
    };
    const pumps = [pumpLines(child.stdout, (line) => options.onLine('stdout', line)), pumpLines(child.stderr, (line) => options.onLine('stderr', line))];
    this.exited = Promise.all([child, ...pumps]).then(([result]) => {
      this.#running = false;
      const signal = result.signal ?? null;
      const exitCode = result.exitCode ?? null;
      const spawnFailed = exitCode === null && signal === null;
      return { exitCode, signal, ...(spawnFailed ? { error: result.shortMessage || result.message || 'could not be spawned' } : {}) };
    });
  }

  /** False once the process has exited and its output is read. */
  get running(): boolean {
    return this.#running;
  }

  /** Sends `signal` to the process group (the process and anything it started). */
  signal(signal: NodeJS.Signals): void {
    if (this.#running) this.#kill(signal);
  }

  /**
   * SIGTERM, then SIGKILL after `graceMs` (an `unref()`'d timer); resolves
   * when the process has closed. Anything left of its process group gets a
   * SIGKILL afterwards, so nothing it started outlives it.
   */
  async stop(options: { graceMs: number }): Promise<ServiceExit> {
    if (this.#running) {
      this.#kill('SIGTERM');
      const timer = setTimeout(() => this.#kill('SIGKILL'), options.graceMs);
      timer.unref();
      try {
        await this.exited;
      } finally {
        clearTimeout(timer);
      }
    }
    if (process.platform !== 'win32' && this.pid !== undefined) {
      try {
        process.kill(-this.pid, 'SIGKILL');
      } catch {
        // Nothing left of the group: the usual case.
      }
    }
    return this.exited;
  }
}

/** Calls `onLine` for each line of `stream`; resolves when the stream has ended. */
function pumpLines(stream: Readable | null | undefined, onLine: (line: string) => void): Promise<void> {
  if (!stream) return Promise.resolve();
  return new Promise((resolve) => {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      pending += chunk;
      let index: number;
      while ((index = pending.indexOf('\n')) >= 0) {
        onLine(pending.slice(0, index).replace(/\r$/, ''));
        pending = pending.slice(index + 1);
      }
      while (pending.length > MAX_LINE) {
        onLine(pending.slice(0, MAX_LINE));
        pending = pending.slice(MAX_LINE);
      }
    });
    const finish = () => {
      if (pending.length > 0) onLine(pending);
      pending = '';
      resolve();
    };
    stream.once('end', finish);
    stream.once('close', finish);
    stream.once('error', finish);
  });
}
