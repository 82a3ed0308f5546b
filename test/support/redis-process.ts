import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export { freePort } from './net.js';
/** A `redis-server` child without persistence; tracks itself so tests can always stop it. */
export class RedisProcess {
  #child: ChildProcess | undefined;

  /** `args`: further `redis-server` options, such as `['--requirepass', 'secret']`. */
  constructor(
    readonly port: number,
    readonly args: readonly string[] = [],
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server and resolves once it accepts connections. */
  async start(): Promise<void> {
    if (this.#child) throw new Error('redis-server is already running');
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...this.args], {
      shell: false,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    this.#child = child;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error(`redis-server did not start:\n${output}`)), 10_000);
      const fail = (error: Error): void => {
        clearTimeout(timer);
        reject(error);
      };
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('error', fail);
      child.once('exit', (code) => fail(new Error(`redis-server exited (${String(code)}):\n${output}`)));
    });
    // Keep draining the pipes so the server never blocks on a full buffer.
    child.stdout?.resume();
    child.stderr?.resume();
  }

  /** Kills the server (SIGKILL, like a crash) and waits until it is gone. */
  async kill(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }
}
