/**
 * Issue 33, "the terminal", from outside: a small real agent whose answers,
 * statuses, plans, tool calls and errors carry terminal escape sequences;
 * `framework-cli chat --message` (text and --json) and `logs` as child
 * processes; the raw bytes of their standard output checked. Run `npm run build` first.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runAgent, type RunningAgent } from '../../runtime/agent/run-agent.js';
import { AgentResponse, FrameworkAgent, FrameworkCore, PLAN_CONFIRMATION, parseTaskInput } from '../../runtime/index.js';
import { formatReport } from '../../runtime/doctor/format-report.js';
import { TOOL_APPROVAL } from '../../runtime/tools/tool-approval.js';
import { waitFor } from '../support/net.js';
import { CLI, REPO_ROOT } from '../support/processes.js';

const OSC52 = 'Here is the summary.\u001b]52;c;cm0gLXJmIH4K\u0007';
const TITLE = 'Planning\u001b]0;sudo: password accepted\u0007';
const OSC8 = 'See \u001b]8;;https://evil.example/login\u001b\\docs.example.com\u001b]8;;\u001b\\';
const BIDI = 'open invoice\u202efdp.exe';
const CSI8 = 'balance ok\u009b2J\u009bH';
const CONCEAL = 'a small transfer\u001b[8m; amount is 50000\u001b[28m';

/** Bytes a terminal would interpret: ESC, C1 controls (UTF-8 C2 80-9F), bidi controls and zero-width characters (UTF-8 E2 80 8B-8F, AA-AE; E2 81 A6-A9). */
function interpreted(bytes: Buffer): string[] {
  const found: string[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const [a, b, c] = [bytes[i]!, bytes[i + 1], bytes[i + 2]];
    if (a === 0x1b || a === 0x07 || a === 0x0d) found.push(`0x${a.toString(16)} at ${i}`);
    if (a === 0xc2 && b !== undefined && b >= 0x80 && b <= 0x9f) found.push(`C1 0x${b.toString(16)} at ${i}`);
    if (a === 0xe2 && b === 0x80 && c !== undefined && ((c >= 0x8b && c <= 0x8f) || (c >= 0xaa && c <= 0xae)))
      found.push(`U+20${(c - 0x80).toString(16).padStart(2, '0')} at ${i}`);
    if (a === 0xe2 && b === 0x81 && c !== undefined && c >= 0xa6 && c <= 0xa9) found.push(`U+20${(c - 0x40).toString(16)} at ${i}`);
  }
  return found;
}

/** Runs the compiled CLI and keeps its standard output as bytes. */
function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'error', ...env },
      shell: false,
    });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out), stderr });
    });
  });
}

// Each test runs the CLI several times as a child process: generous on a busy machine.
vi.setConfig({ testTimeout: 120_000 });

let running: RunningAgent;
let home: string;

beforeAll(async () => {
  const core = new FrameworkCore();
  const agent = new FrameworkAgent({ agentName: 'attacker', description: 'writes escape sequences', version: '1.0.0' });
  core.task({ name: 'route_to_task' }, async function* ({ query }) {
    const text = typeof query === 'string' ? query : parseTaskInput(query).text;
    switch (text) {
      case 'osc52':
        yield AgentResponse.text(OSC52);
        return;
      case 'title':
        yield AgentResponse.status(TITLE);
        yield AgentResponse.error(`model failed${TITLE}`, { code: 'task_error' });
        return;
      case 'osc8':
        yield AgentResponse.text(OSC8);
        yield AgentResponse.result({ answer: OSC8 });
        return;
      case 'bidi':
        yield AgentResponse.inputRequired(`Proposed plan\n1. ${BIDI}`, {
          actionType: PLAN_CONFIRMATION,
          data: { plan_id: 'p-1', plan: { objective: 'pay', methodology: 'WBS', tasks: [{ description: BIDI }] } },
        });
        return;
      case 'csi8':
        yield AgentResponse.text(CSI8);
        return;
      default:
        yield AgentResponse.inputRequired(`Approve ${CONCEAL}?`, {
          actionType: TOOL_APPROVAL,
          data: { approval_id: 'a-1', tool: 'transfer', arguments: { amount: 50000, memo: CSI8 }, reasons: [CONCEAL] },
        });
    }
  });
  running = await runAgent(core, agent, { port: 0, a2a: false, env: { LOG_LEVEL: 'error' } });
  home = await mkdtemp(join(tmpdir(), 'fw-terminal-'));
});

afterAll(async () => {
  await running?.close();
  await rm(home, { recursive: true, force: true });
});

const chat = (message: string, json = false) =>
  cli(['chat', running.url, '--message', message, '--new-session', ...(json ? ['--json'] : [])], { XDG_CONFIG_HOME: home });

describe('chat --message prints what the agent wrote, never what it would do to the terminal', () => {
  it('an answer that writes the clipboard (OSC 52)', async () => {
    const { stdout } = await chat('osc52');
    expect(interpreted(stdout)).toEqual([]);
    expect(stdout.toString()).toContain('Here is the summary.\\x1b]52;c;cm0gLXJmIH4K\\x07');
  });

  it('a status and an error that set the window title', async () => {
    const { code, stdout, stderr } = await chat('title');
    expect(code).toBe(1);
    expect(interpreted(stdout)).toEqual([]);
    expect(stdout.toString()).toContain('… Planning\\x1b]0;sudo: password accepted\\x07');
    expect(stdout.toString()).toContain('Error (task_error): model failedPlanning\\x1b]0;sudo: password accepted\\x07');
    expect(interpreted(Buffer.from(stderr))).toEqual([]);
  });

  it('a result with a hidden link (OSC 8)', async () => {
    const { stdout } = await chat('osc8');
    expect(interpreted(stdout)).toEqual([]);
    expect(stdout.toString()).toContain('See \\x1b]8;;https://evil.example/login\\x1b\\docs.example.com');
    expect(stdout.toString()).toContain('"answer": "See \\u001b]8;;https://evil.example/login');
  });

  it('a plan step with a bidi override', async () => {
    const { stdout } = await chat('bidi');
    expect(interpreted(stdout)).toEqual([]);
    expect(stdout.toString()).toContain('open invoice\\u202efdp.exe');
  });

  it('an answer with 8-bit CSI (U+009B)', async () => {
    const { stdout } = await chat('csi8');
    expect(interpreted(stdout)).toEqual([]);
    expect(stdout.toString()).toContain('balance ok\\x9b2J\\x9bH');
  });

  it('a tool call whose reason conceals "amount is 50000" (SGR 8): the call is shown exactly', async () => {
    const { stdout } = await chat('transfer');
    const text = stdout.toString();
    expect(interpreted(stdout)).toEqual([]);
    expect(text).toContain('Approval needed: transfer');
    expect(text).toContain('"amount": 50000');
    expect(text).toContain('"memo": "balance ok\\x9b2J\\x9bH"');
    expect(text).toContain('Why: a small transfer\\x1b[8m; amount is 50000\\x1b[28m');
  });

  it('--json escapes C1 controls and bidi overrides as \\uXXXX, and says exactly what the agent sent', async () => {
    const sent: Record<string, unknown> = {};
    for (const message of ['osc52', 'title', 'osc8', 'bidi', 'csi8', 'transfer']) {
      const { stdout } = await chat(message, true);
      expect(interpreted(stdout), message).toEqual([]);
      expect(stdout.toString()).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/);
      sent[message] = stdout
        .toString()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { event: string; data: unknown })
        .filter((line) => line.event !== 'session' && line.event !== 'done');
    }
    expect(sent.osc52).toEqual([{ event: 'text', data: { text: OSC52 } }]);
    expect(sent.csi8).toEqual([{ event: 'text', data: { text: CSI8 } }]);
    expect(sent.osc8).toMatchObject([
      { event: 'text', data: { text: OSC8 } },
      { event: 'result', data: { answer: OSC8 } },
    ]);
    expect(JSON.stringify(sent.bidi)).toContain(JSON.stringify(BIDI).slice(1, -1));
    expect(sent.transfer).toMatchObject([{ event: 'input_required', data: { data: { reasons: [CONCEAL], arguments: { memo: CSI8 } } } }]);
  });
});

describe('an error message that quotes the agent reaches standard error as text', () => {
  it('an HTTP error body that sets the title and reverses the text: escaped on stderr, \\uXXXX under --json', async () => {
    const message = `nope${TITLE} ${BIDI}`;
    const server = createServer((_request, response) => {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { code: 'invalid_request', message }, code: 'invalid_request', message }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const text = await cli(['chat', url, '--message', 'hi'], { XDG_CONFIG_HOME: join(home, 'errors') });
      expect(text.code).toBe(1);
      expect(interpreted(Buffer.from(text.stderr))).toEqual([]);
      expect(text.stderr.replace(/\n\s*›\s*/g, ' ').replace(/\s+/g, ' ')).toContain(
        'nopePlanning\\x1b]0;sudo: password accepted\\x07 open invoice\\u202efdp.exe',
      );
      const json = await cli(['chat', url, '--message', 'hi', '--json'], { XDG_CONFIG_HOME: join(home, 'errors') });
      expect(interpreted(json.stdout)).toEqual([]);
      expect(json.stdout.toString()).not.toMatch(/[\u0080-\u009f\u202a-\u202e]/);
      expect((JSON.parse(json.stdout.toString()) as { error: { message: string } }).error.message).toContain(message);
    } finally {
      server.close();
    }
  });
});

describe('logs prints what services wrote, never what it would do to the terminal', () => {
  it('shows each attack in a service log as text, and --json escapes it', async () => {
    const root = await mkdtemp(join(tmpdir(), 'fw-terminal-logs-'));
    try {
      await mkdir(join(root, '.framework/run/logs'), { recursive: true });
      const lines = [OSC52, TITLE, OSC8, BIDI, CSI8, `forged\rplanner | approved ${CONCEAL}`];
      await writeFile(join(root, '.framework/run/logs/planner.log'), `${lines.join('\n')}\n`);
      const text = await cli(['logs', '--dir', root]);
      expect(text.code).toBe(0);
      expect(interpreted(text.stdout)).toEqual([]);
      const shown = text.stdout.toString().trimEnd().split('\n');
      expect(shown).toHaveLength(lines.length);
      expect(shown[0]).toBe('planner | Here is the summary.\\x1b]52;c;cm0gLXJmIH4K\\x07');
      expect(shown[5]).toBe('planner | forged\\rplanner | approved a small transfer\\x1b[8m; amount is 50000\\x1b[28m');

      const json = await cli(['logs', '--dir', root, '--json']);
      expect(interpreted(json.stdout)).toEqual([]);
      expect(json.stdout.toString()).not.toMatch(/[\u0080-\u009f\u202a-\u202e]/);
      expect((JSON.parse(json.stdout.toString()) as { lines: { line: string }[] }).lines.map((l) => l.line)).toEqual(lines);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('policy eval prints the input it was given as text', () => {
  it('an input whose strings carry a title, a bidi override and 8-bit CSI: escaped in both outputs', async () => {
    const root = await mkdtemp(join(tmpdir(), 'fw-terminal-policy-'));
    try {
      await mkdir(join(root, 'policies'));
      await writeFile(join(root, 'policies/echo.rego'), 'package echo\n\nreason := input.reason\n');
      const input = { reason: `${TITLE} ${BIDI} ${CSI8}` };
      await writeFile(join(root, 'input.json'), JSON.stringify(input));
      for (const json of [false, true]) {
        const run = await cli([
          'policy',
          'eval',
          '-d',
          join(root, 'policies'),
          '-i',
          join(root, 'input.json'),
          'data.echo.reason',
          ...(json ? ['--json'] : []),
        ]);
        expect(run.code).toBe(0);
        expect(interpreted(run.stdout), `--json ${String(json)}`).toEqual([]);
        expect(run.stdout.toString()).not.toMatch(/[\u0080-\u009f\u202a-\u202e]/);
        expect(JSON.stringify(JSON.parse(run.stdout.toString()))).toContain(JSON.stringify(input.reason));
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('doctor shows what services answered as text', () => {
  it('a policy engine that answers its health check with a window title: doctor and doctor --json (pretty) show it escaped', async () => {
    const body = `down${TITLE} ${BIDI} ${CSI8}`;
    const server = createServer((_request, response) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const env = { OPA_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    try {
      const text = await cli(['doctor'], env);
      expect(interpreted(text.stdout)).toEqual([]);
      expect(text.stdout.toString()).toContain('answered HTTP 500: downPlanning\\x1b]0;sudo: password accepted\\x07 open invoice\\u202efdp.exe');
      const json = await cli(['doctor', '--json'], env);
      expect(interpreted(json.stdout)).toEqual([]);
      expect(json.stdout.toString()).not.toMatch(/[\u0080-\u009f\u202a-\u202e]/);
      const report = JSON.parse(json.stdout.toString()) as { checks: { detail: string }[] };
      expect(report.checks.some((check) => check.detail.includes(body))).toBe(true);
    } finally {
      server.close();
    }
  });

  it('a detail with a window title and a bidi override', () => {
    const report = formatReport({
      ok: false,
      checks: [{ name: 'opa', status: 'missing', detail: `OPA answered ${TITLE} \u202egnp.exe`, fix: 'start it\u009b2J', required: true }],
    });
    expect(interpreted(Buffer.from(report))).toEqual([]);
    expect(report).toContain('OPA answered Planning\\x1b]0;sudo: password accepted\\x07 \\u202egnp.exe');
    expect(report).toContain('fix: start it\\x9b2J');
  });
});

describe('the REPL in a real terminal (tmux) shows the attacks and the terminal does none of them', () => {
  const socket = `fw-terminal-${process.pid}`;
  const tmux = (...args: string[]) => promisify(execFile)('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  const screen = async () => (await tmux('capture-pane', '-p', '-t', 'chat', '-S', '-200')).stdout;
  const waitForScreen = async (text: string, what: string) => {
    await waitFor(async () => (await screen()).includes(text), what, 20_000).catch(async (error: Error) => {
      throw new Error(`${error.message}\n--- screen ---\n${await screen()}`);
    });
  };

  afterAll(async () => {
    await tmux('kill-server').catch(() => undefined);
  });

  it('a window title and a clipboard write reach the screen as text; the pane keeps its title and tmux its buffers', async () => {
    const command = [process.execPath, CLI, 'chat', running.url].map((part) => `'${part}'`).join(' ');
    await tmux(
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-s',
      'chat',
      '-x',
      '160',
      '-y',
      '50',
      '-c',
      REPO_ROOT,
      '-e',
      `XDG_CONFIG_HOME=${join(home, 'tmux')}`,
      '-e',
      'LOG_LEVEL=warn',
      command,
    );
    // tmux takes OSC 52 into a paste buffer and OSC 0 into the pane's title when they reach it.
    await tmux('set-option', '-g', 'set-clipboard', 'on');
    await tmux('set-option', '-g', 'allow-rename', 'on');
    await tmux('select-pane', '-t', 'chat', '-T', 'before');
    await waitForScreen('Started a new session', 'the REPL to start a session');
    await tmux('send-keys', '-t', 'chat', '-l', 'title');
    await tmux('send-keys', '-t', 'chat', 'Enter');
    await waitForScreen('model failed', 'the error of the title attack');
    expect((await tmux('display-message', '-p', '-t', 'chat', '#{pane_title}')).stdout.trim()).toBe('before');
    expect(await screen()).toContain('model failedPlanning\\x1b]0;sudo: password accepted\\x07');

    await tmux('send-keys', '-t', 'chat', '-l', 'osc52');
    await tmux('send-keys', '-t', 'chat', 'Enter');
    await waitForScreen('Here is the summary.', 'the answer of the clipboard attack');
    const buffers = await tmux('list-buffers', '-F', '#{buffer_sample}').then(
      (listed) => listed.stdout,
      () => '',
    );
    expect(buffers).not.toContain('rm -rf');
    expect(await screen()).toContain('Here is the summary.\\x1b]52;c;cm0gLXJmIH4K\\x07');
    // Each escape stands out in reverse video (SGR 7), so it cannot pass for text the agent wrote.
    const styled = (await tmux('capture-pane', '-e', '-p', '-t', 'chat', '-S', '-200')).stdout;
    expect(styled).toMatch(/summary\.\u001b\[7m\\x1b\u001b\[0m[^\n]*\]52;c;cm0gLXJmIH4K\u001b\[7m\\x07/);
  }, 60_000);
});
