import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { answers, freePort, waitFor } from './net.js';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = fileURLToPath(new URL('../../cli/bin/run.js', import.meta.url));

export interface ChildAgent {
  url: string;
  port: number;
  process: ChildProcess;
  output: () => string;
  stop(): Promise<number | null>;
}

/**
 * Starts `framework-cli serve agent` as a real child process (the compiled
 * CLI: run `npm run build` first) and waits until GET /health answers.
 */
export async function startAgentProcess(options: { env?: Record<string, string>; args?: string[] } = {}): Promise<ChildAgent> {
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'serve', 'agent', '--port', String(port), ...(options.args ?? [])], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    shell: false,
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<number | null>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
      const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.once('exit', (code) => {
        clearTimeout(kill);
        resolve(code);
      });
      child.kill('SIGTERM');
    });
  try {
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`agent exited early: ${output}`);
      return answers(`${url}/health`);
    }, `agent on ${url} (${output})`);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, port, process: child, output: () => output, stop };
}
