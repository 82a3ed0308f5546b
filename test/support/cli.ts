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
 * `stopWhen`, the process gets one SIGTERM once its stdout matches; with
 * `input`, that text is its standard input (closed after it).
 */
export function runCli(
  args: readonly string[],
  options: { env?: Record<string, string>; timeoutMs?: number; stopWhen?: RegExp; cwd?: string; input?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...options.env },
      shell: false,
    });
    if (options.input !== undefined) child.stdin.end(options.input);
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

/**
 * Runs a `framework-cli` command inside the test process with oclif's
 * `captureOutput` (the compiled commands under dist/, as the binary loads
 * them), for commands that neither serve nor wait on signals: much cheaper
 * than a process. `env` is set for the run and restored after; `cwd` is
 * entered for the run. `code` is the exit code the binary would have had.
 */
export async function runCliInProcess(args: readonly string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<CliResult> {
  const { Config } = await import('@oclif/core');
  const { captureOutput } = await import('@oclif/test');
  const saved = Object.entries(options.env ?? {}).map(([key]) => [key, process.env[key]] as const);
  const previousCwd = process.cwd();
  Object.assign(process.env, { LOG_LEVEL: 'warn', ...options.env });
  if (options.cwd) process.chdir(options.cwd);
  try {
    const config = await Config.load(REPO_ROOT);
    const [id, ...rest] = commandId(config, args);
    process.exitCode = undefined;
    const output = await captureOutput(async () => config.runCommand(id as string, rest), { print: false, stripAnsi: true });
    // A command that fails without throwing (doctor, --json errors) sets process.exitCode, as the binary would exit with it.
    const exitCode = process.exitCode;
    process.exitCode = undefined;
    const exit = (output.error as { oclif?: { exit?: number } } | undefined)?.oclif?.exit;
    // oclif prints a failed command's message to stderr from its error handler, which runCommand skips.
    const stderr = output.error && !args.includes('--json') ? `${output.stderr}${output.error.message}\n` : output.stderr;
    const code = typeof exitCode === 'number' && exitCode !== 0 ? exitCode : output.error ? (typeof exit === 'number' ? exit : 1) : 0;
    return { code, stdout: output.stdout, stderr };
  } finally {
    process.chdir(previousCwd);
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

/** `['policy', 'eval', ...]` → `['policy:eval', ...]`: the longest prefix that names a command. */
function commandId(config: { findCommand(id: string): unknown }, args: readonly string[]): string[] {
  for (let n = Math.min(args.length, 3); n > 0; n--) {
    const id = args.slice(0, n).join(':');
    if (config.findCommand(id)) return [id, ...args.slice(n)];
  }
  return [...args];
}

/** oclif's error text on one line: its ` ›   ` margins and the line breaks it wraps at dropped. */
export function plainError(stderr: string): string {
  return stderr
    .replace(/\s*›\s+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
