import { spawn } from 'node:child_process';
import { CLI, REPO_ROOT } from './processes.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the compiled `framework-cli` as a child process and collects its
 * output ('close', not 'exit': only then has all of it arrived). With
 * `stopWhen`, the process gets one SIGTERM once its stdout matches.
 */
export function runCli(
  args: readonly string[],
  options: { env?: Record<string, string>; timeoutMs?: number; stopWhen?: RegExp; cwd?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...options.env },
      shell: false,
    });
    let stdout = '';
    let stderr = '';
    let stopped = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (options.stopWhen && !stopped && options.stopWhen.test(stdout)) {
        stopped = true;
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 15_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
