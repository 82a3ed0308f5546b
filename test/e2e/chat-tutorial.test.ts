/**
 * `framework-cli chat` end to end against the tutorial (policy engine,
 * Guardian, executor and planner as processes, strict and signed): the NDJSON
 * script mode through propose → modify → approve, its errors, the token
 * file; and the interactive REPL in a real pseudo-terminal (tmux). Run
 * `npm run build` first.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { freePort, waitFor } from '../support/net.js';
import { CLI, REPO_ROOT } from '../support/processes.js';
import { startTutorialStack, type TutorialStack } from '../repl/tutorial-stack.js';

const run = promisify(execFile);
let stack: TutorialStack;
let configHome: string;

beforeAll(async () => {
  stack = await startTutorialStack();
  configHome = await mkdtemp(join(tmpdir(), 'fw-chat-config-'));
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  expect(stack.allStopped()).toBe(true);
  await rm(configHome, { recursive: true, force: true });
});

interface Line {
  event?: string;
  data?: Record<string, unknown>;
  error?: { code: string; message: string; exit: number };
}

async function chat(args: string[], home = configHome): Promise<{ code: number | null; lines: Line[]; stderr: string }> {
  const result = await runCli(['chat', ...args], { env: { XDG_CONFIG_HOME: home }, timeoutMs: 30_000 });
  const lines = result.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Line);
  return { code: result.code, lines, stderr: result.stderr };
}

const events = (lines: Line[]) => lines.map((line) => line.event ?? 'error');
const tokenFile = (home: string) => join(home, 'framework-cli', 'sessions.json');

describe('chat --json (NDJSON script mode)', () => {
  it('runs propose → modify → approve on one saved session, one JSON line per event', async () => {
    const url = stack.planner.url;
    const proposed = await chat([url, '--message', 'Book the room; send the invitations', '--json']);
    expect(proposed.code).toBe(0);
    expect(events(proposed.lines)).toEqual(['session', 'status', 'input_required', 'done']);
    const [started, , plan, done] = proposed.lines;
    expect(started!.data).toMatchObject({ status: 'started' });
    expect(plan!.data).toMatchObject({
      action_type: 'plan_confirmation',
      data: { plan: { tasks: [{ description: 'Book the room' }, { description: 'send the invitations' }] } },
    });
    const firstPlanId = (plan!.data!.data as { plan_id: string }).plan_id;
    expect(done!.data).toMatchObject({ status: 'ok', awaiting_input: true, plan_id: firstPlanId });

    // The token was saved user-only and is reused by the next run.
    expect((await stat(tokenFile(configHome))).mode & 0o777).toBe(0o600);
    expect((await stat(join(configHome, 'framework-cli'))).mode & 0o777).toBe(0o700);
    const saved = JSON.parse(await readFile(tokenFile(configHome), 'utf8')) as { sessions: Record<string, { token: string; plan_id?: string }> };
    expect(saved.sessions[url]).toMatchObject({ plan_id: firstPlanId });

    const modified = await chat([url, '--modify', 'add a step to order catering', '--json']);
    expect(modified.code).toBe(0);
    expect(modified.lines[0]).toMatchObject({ event: 'session', data: { status: 'resumed' } });
    const asked = modified.lines.filter((line) => line.event === 'input_required');
    expect(asked).toHaveLength(2);
    expect(asked[0]!.data).not.toHaveProperty('action_type');
    expect(asked[1]!.data).toMatchObject({ action_type: 'plan_confirmation' });
    const revised = asked[1]!.data!.data as { plan_id: string; plan: { tasks: { description: string }[] } };
    expect(revised.plan_id).not.toBe(firstPlanId);
    expect(revised.plan.tasks.map((t) => t.description)).toEqual(['Book the room', 'send the invitations', 'order catering']);

    const approved = await chat([url, '--approve', '--json']);
    expect(approved.code).toBe(0);
    const statuses = approved.lines.filter((line) => line.event === 'status').map((line) => line.data!.text);
    expect(statuses).toEqual(expect.arrayContaining(['Step 1/3: Book the room', 'Delegating step 3/3 to the executor: order catering']));
    const result = approved.lines.find((line) => line.event === 'result');
    expect(result!.data).toMatchObject({ actions: ['Book the room', 'send the invitations', 'order catering'] });
    expect((result!.data!.outcomes as string[]).every((outcome) => outcome.startsWith('Done'))).toBe(true);
    expect(approved.lines.at(-1)).toMatchObject({ event: 'done', data: { status: 'ok', awaiting_input: false } });
    // The same conversation throughout: the token file still holds the first session.
    const after = JSON.parse(await readFile(tokenFile(configHome), 'utf8')) as { sessions: Record<string, { token: string }> };
    expect(after.sessions[url]!.token).toBe(saved.sessions[url]!.token);
  }, 60_000);

  it('rejects a plan, and renews an expired token saying so', async () => {
    const home = await mkdtemp(join(tmpdir(), 'fw-chat-config-'));
    try {
      const url = stack.planner.url;
      expect((await chat([url, '--message', 'Paint the fence; water the plants', '--json'], home)).code).toBe(0);
      const rejected = await chat([url, '--reject', '--json'], home);
      expect(rejected.code).toBe(0);
      expect(rejected.lines.find((line) => line.event === 'text')!.data!.text).toMatch(/cancel/i);
      expect(rejected.lines.some((line) => line.event === 'result')).toBe(false);

      const file = JSON.parse(await readFile(tokenFile(home), 'utf8')) as { version: 1; sessions: Record<string, { token: string }> };
      file.sessions[url]!.token = 'expired-or-unknown-token';
      await writeFile(tokenFile(home), JSON.stringify(file), { mode: 0o600 });
      const renewed = await chat([url, '--message', 'Sweep the floor', '--json'], home);
      expect(renewed.code).toBe(0);
      expect(renewed.lines.filter((line) => line.event === 'session').map((line) => line.data!.status)).toEqual(['resumed', 'renewed']);
      expect(renewed.lines.some((line) => line.event === 'input_required')).toBe(true);
      const saved = JSON.parse(await readFile(tokenFile(home), 'utf8')) as { sessions: Record<string, { token: string }> };
      expect(saved.sessions[url]!.token).not.toBe('expired-or-unknown-token');
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 60_000);

  it('explains failures with a code, a fix and a non-zero exit', async () => {
    const down = `http://127.0.0.1:${await freePort()}`;
    const refused = await chat([down, '--message', 'hello', '--json']);
    expect(refused.code).toBe(1);
    expect(refused.lines.at(-1)!.error).toMatchObject({ code: 'agent_not_ready', exit: 1 });
    expect(refused.lines.at(-1)!.error!.message).toMatch(/Cannot reach the agent at .*connection refused.*framework-cli up/);

    const noSession = await chat([down, '--approve', '--json']);
    expect(noSession.code).toBe(1);
    expect(noSession.lines.at(-1)!.error).toMatchObject({ code: 'no_saved_session' });

    const notScript = await chat([stack.planner.url, '--json']);
    expect(notScript.code).toBe(2);
    expect(notScript.lines.at(-1)!.error).toMatchObject({ code: 'invalid_arguments' });

    const noTerminal = await runCli(['chat', stack.planner.url], { env: { XDG_CONFIG_HOME: configHome } });
    expect(noTerminal.code).toBe(2);
    expect(noTerminal.stderr).toMatch(/needs a terminal.*--message/s);

    const both = await chat([stack.planner.url, '--approve', '--reject', '--json']);
    expect(both.code).toBe(2);

    const unknown = await chat(['no-such-agent', '--message', 'hi', '--json']);
    expect(unknown.code).toBe(1);
    expect(unknown.lines.at(-1)!.error).toMatchObject({ code: 'agent_not_found' });
  }, 60_000);

  it('prints plain lines without --json', async () => {
    const home = await mkdtemp(join(tmpdir(), 'fw-chat-config-'));
    try {
      const result = await runCli(['chat', stack.planner.url, '--message', 'Wash the car'], { env: { XDG_CONFIG_HOME: home }, timeoutMs: 30_000 });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/Started a new session/);
      expect(result.stdout).toMatch(/… Planning/);
      expect(result.stdout).toMatch(/Wash the car/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('chat REPL in a real terminal (tmux)', () => {
  const socket = `fw-chat-${process.pid}`;
  const tmux = (...args: string[]) => run('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  const screen = async () => (await tmux('capture-pane', '-p', '-t', 'chat', '-S', '-200')).stdout;
  const waitForScreen = async (pattern: RegExp, what: string) => {
    await waitFor(async () => pattern.test(await screen()), what, 20_000).catch(async (error: Error) => {
      throw new Error(`${error.message}\n--- screen ---\n${await screen()}`);
    });
  };

  afterAll(async () => {
    await tmux('kill-server').catch(() => undefined);
  });

  // CI=true as in CI: Ink would then draw only the final frame, and the REPL must still show every one.
  it('shows the plan card and executes the plan when a is pressed', async () => {
    const home = await mkdtemp(join(tmpdir(), 'fw-chat-tty-'));
    try {
      const command = [process.execPath, CLI, 'chat', stack.planner.url].map((part) => `'${part}'`).join(' ');
      await tmux(
        'new-session',
        '-d',
        '-s',
        'chat',
        '-x',
        '120',
        '-y',
        '50',
        '-c',
        REPO_ROOT,
        '-e',
        `XDG_CONFIG_HOME=${home}`,
        '-e',
        'LOG_LEVEL=warn',
        '-e',
        'CI=true',
        command,
      );
      await waitForScreen(/Started a new session/, 'the REPL to start a session');
      await tmux('send-keys', '-t', 'chat', '-l', 'Print the agenda; book the speakers');
      await tmux('send-keys', '-t', 'chat', 'Enter');
      await waitForScreen(/a approve/, 'the plan card');
      const card = await screen();
      expect(card).toMatch(/1\. Print the agenda/);
      expect(card).toMatch(/2\. book the speakers/);

      await tmux('send-keys', '-t', 'chat', 'a');
      await waitForScreen(/book the speakers → Done/, 'the executed plan');
      expect(await screen()).toMatch(/Step 1\/2: Print the agenda/);

      // The result is drawn before the stream's end arrives; until then the
      // REPL is busy and Ctrl-C cancels the request instead of quitting (as it
      // should). Quit once the prompt is back.
      await waitFor(async () => !/Ctrl-C cancels/.test(await screen()), 'the prompt to come back after the plan', 20_000);
      await tmux('send-keys', '-t', 'chat', 'C-c');
      await waitFor(
        async () =>
          !(await tmux('list-sessions').then(
            () => true,
            () => false,
          )),
        'the REPL to exit on Ctrl-C',
        10_000,
      );
      expect((await stat(tokenFile(home))).mode & 0o777).toBe(0o600);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 60_000);
});
