/**
 * The guard's attack class "terminal" (issue 33): a person approving must see
 * the truth. A hostile agent (a real `serve agent` process) answers with
 * OSC 52 clipboard writes, window titles, OSC 8 links, bidi overrides, 8-bit
 * CSI and concealed text; `framework-cli chat --message` (text and --json)
 * and `logs` (text and --json) run as child processes, and the raw bytes
 * they write are checked: an attack holds when no byte a terminal would
 * interpret reaches standard output or standard error.
 */
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT, freePort, startCli } from '../child-services.js';
import { TERMINAL_ATTACKS, type TerminalAttack } from '../terminal-agent.js';
import { attackTally, type GuardAttackClass, type GuardAttackContext, type GuardAttackResult } from './guard-attack.js';

const CLI = join(REPO_ROOT, 'cli/bin/run.js');
const AGENT_MODULE = join(REPO_ROOT, 'dist/bench/support/terminal-agent.js');

/**
 * What in `bytes` a terminal would interpret rather than show: ESC, BEL, a
 * lone CR, C1 controls (UTF-8 C2 80-9F), bidi controls and zero-width
 * characters (U+200B-U+200F, U+202A-U+202E, U+2066-U+2069, U+061C). Empty when clean.
 */
export function interpretedBytes(bytes: Buffer): string[] {
  const found: string[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const [a, b, c] = [bytes[i]!, bytes[i + 1], bytes[i + 2]];
    if (a === 0x1b || a === 0x07 || a === 0x08 || (a === 0x0d && b !== 0x0a)) found.push(`0x${a.toString(16).padStart(2, '0')}`);
    else if (a === 0xc2 && b !== undefined && b >= 0x80 && b <= 0x9f) found.push(`U+00${b.toString(16)}`);
    else if (a === 0xd8 && b === 0x9c) found.push('U+061c');
    else if (a === 0xe2 && b === 0x80 && c !== undefined && ((c >= 0x8b && c <= 0x8f) || (c >= 0xaa && c <= 0xae)))
      found.push(`U+20${(c - 0x80).toString(16).padStart(2, '0')}`);
    else if (a === 0xe2 && b === 0x81 && c !== undefined && c >= 0xa6 && c <= 0xa9) found.push(`U+20${(c - 0x40).toString(16)}`);
  }
  return found;
}

/** One run of the CLI to its end, its output kept as bytes. */
function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: Buffer; stderr: Buffer }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'error', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: false,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => stdout.push(d));
    child.stderr.on('data', (d: Buffer) => stderr.push(d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    timer.unref();
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr) });
    });
  });
}

function describeBytes(found: readonly string[]): string {
  return `${found.slice(0, 4).join(', ')}${found.length > 4 ? ` and ${found.length - 4} more` : ''}`;
}

export const terminalAttacks: GuardAttackClass = {
  name: 'terminal',
  async run(context: GuardAttackContext): Promise<GuardAttackResult> {
    const tally = attackTally();
    const port = await freePort();
    const agent = await startCli({ name: 'hostile agent', args: ['serve', 'agent', '--module', AGENT_MODULE, '--port', String(port)], port });
    const env = { XDG_CONFIG_HOME: join(context.scratch, 'config') };
    try {
      for (const attack of Object.keys(TERMINAL_ATTACKS) as TerminalAttack[]) {
        const text = await runCli(['chat', agent.url, '--message', attack, '--new-session'], env);
        const raw = [...interpretedBytes(text.stdout), ...interpretedBytes(text.stderr)];
        tally.check(raw.length === 0 && text.stdout.length > 0, `chat --message (${attack}): the terminal got ${describeBytes(raw) || 'no output'}`);

        const json = await runCli(['chat', agent.url, '--message', attack, '--new-session', '--json'], env);
        const rawJson = interpretedBytes(json.stdout);
        tally.check(
          rawJson.length === 0 && json.stdout.length > 0,
          `chat --message --json (${attack}): the terminal got ${describeBytes(rawJson) || 'no output'}`,
        );
      }

      // A service's log holds what its agent and model wrote.
      const root = join(context.scratch, 'project');
      await mkdir(join(root, '.framework/run/logs'), { recursive: true });
      await writeFile(join(root, '.framework/run/logs/agent.log'), `${Object.values(TERMINAL_ATTACKS).join('\n')}\n`);
      for (const args of [
        ['logs', '--dir', root],
        ['logs', '--dir', root, '--json'],
      ]) {
        const logs = await runCli(args, env);
        const raw = interpretedBytes(logs.stdout);
        tally.check(
          raw.length === 0 && logs.stdout.length > 0,
          `${args.join(' ').replace(root, '<project>')}: the terminal got ${describeBytes(raw) || 'no output'}`,
        );
      }
    } finally {
      await agent.stop();
    }
    return tally.result();
  },
};
