import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent, type RunningAgent } from '../../runtime/agent/run-agent.js';
import { SessionTokenStore } from '../../repl/session-token-store.js';
import { createFixtureAgent } from '../http/agent-fixture.js';
import { plainError, runCli } from '../support/cli.js';
import { freePort } from '../support/net.js';

/**
 * `chat` as a new user meets it: after `up --example trading` plain `chat`
 * talks to the stack running there (not the tutorial planner's default), a
 * named example agent outside a project says how to start it, a session read
 * from the token file is not announced as resumed before the agent answered,
 * and --reject with nothing waiting fails instead of reporting "ok".
 */

interface Line {
  event?: string;
  data?: Record<string, unknown>;
  error?: { code: string; message: string; exit: number };
}

let agent: RunningAgent;
let base: string;
beforeAll(async () => {
  const fixture = createFixtureAgent();
  agent = await runAgent(fixture.core, fixture.agent, { port: 0, a2a: false, env: { AGENT_NAME: 'fixture', LOG_LEVEL: 'error' } });
  base = await mkdtemp(join(tmpdir(), 'fw-chat-first-'));
});
afterAll(async () => {
  await agent?.close();
  await rm(base, { recursive: true, force: true });
});

async function chat(args: string[], options: { home: string; cwd?: string }): Promise<{ code: number | null; lines: Line[]; stderr: string }> {
  const result = await runCli(['chat', ...args], { env: { XDG_CONFIG_HOME: options.home }, timeoutMs: 30_000, ...(options.cwd ? { cwd: options.cwd } : {}) });
  const lines = result.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Line);
  return { code: result.code, lines, stderr: result.stderr };
}

const newHome = () => mkdtemp(join(base, 'home-'));

describe('chat for a new user', () => {
  it('--reject with nothing waiting for a decision exits 1 with nothing_pending, sending nothing', async () => {
    const home = await newHome();
    const sent = await chat([agent.url, '--message', 'hello agent', '--json'], { home });
    expect(sent.code).toBe(0);
    expect(sent.lines.at(-1)).toMatchObject({ event: 'done', data: { status: 'ok', awaiting_input: false } });
    for (const flag of ['--reject', '--approve']) {
      const decided = await chat([agent.url, flag, '--json'], { home });
      expect(decided.code).toBe(1);
      expect(decided.lines).toHaveLength(1);
      expect(decided.lines[0]!.error).toMatchObject({
        code: 'nothing_pending',
        exit: 1,
        message: expect.stringContaining('Nothing is waiting for a decision'),
      });
    }
  });

  it('plain chat finds the agent of the stack running in this folder (as up --example trading records it)', async () => {
    const home = await newHome();
    const dir = await mkdtemp(join(base, 'trading-'));
    await mkdir(join(dir, '.framework', 'run'), { recursive: true });
    const policyPort = await freePort();
    await writeFile(
      join(dir, '.framework', 'run', 'state.json'),
      JSON.stringify({
        // A live supervisor: this test's own process.
        supervisorPid: process.pid,
        startedAt: new Date().toISOString(),
        services: [
          { name: 'policy', kind: 'policy', pid: null, port: policyPort, url: `http://127.0.0.1:${policyPort}`, log: 'policy.log' },
          { name: 'trader', kind: 'agent', pid: null, port: Number(new URL(agent.url).port), url: agent.url, log: 'trader.log' },
        ],
      }),
    );
    const plain = await chat(['--message', 'hello', '--json'], { home, cwd: dir });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.lines.at(-1)).toMatchObject({ event: 'done', data: { status: 'ok', agent: agent.url.replace(/\/+$/, '') } });
    // By name too, with no project.json there.
    const named = await chat(['trader', '--message', 'hello', '--json'], { home, cwd: dir });
    expect(named.code, named.stderr).toBe(0);
    const unknown = await chat(['planner', '--message', 'hello', '--json'], { home, cwd: dir });
    expect(unknown.code).toBe(1);
    expect(unknown.lines[0]!.error!.message).toContain('has no agent "planner" (its services: policy, trader)');
  });

  it('chat trader outside any project or stack says how to start the trading example, not project.json', async () => {
    const home = await newHome();
    const empty = await mkdtemp(join(base, 'empty-'));
    const result = await runCli(['chat', 'trader', '--message', 'buy 10 of ACME'], { env: { XDG_CONFIG_HOME: home }, cwd: empty });
    expect(result.code).toBe(1);
    const message = plainError(result.stderr);
    expect(message).toContain('"trader" is the trading example\'s agent: start it with framework-cli up --example trading');
    expect(message).not.toContain('project.json');
  });

  it('a saved session with an agent that is down is not announced as resumed: the error comes alone', async () => {
    const home = await newHome();
    const down = `http://127.0.0.1:${await freePort()}`;
    await new SessionTokenStore({ dir: join(home, 'framework-cli') }).save(down, { token: 'saved-token', saved_at: new Date().toISOString() });
    const result = await chat([down, '--message', 'hello', '--json'], { home });
    expect(result.code).toBe(1);
    expect(result.lines.map((line) => line.event ?? 'error')).toEqual(['error']);
    expect(result.lines[0]!.error).toMatchObject({ code: 'agent_not_ready' });
  });
});
