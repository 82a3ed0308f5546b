import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/index.js';
import { runAgent } from '../../runtime/agent/run-agent.js';
import { deleteKeys, scanKeys } from '../support/redis-keys.js';
import { createFixtureAgent } from './agent-fixture.js';

// The front door on SESSION_BACKEND=kv against the real Redis: what each request costs in Redis commands,
// counted with MONITOR (every command of every client, filtered to this run's key prefix).

const PREFIX = `fwtest:rt:${randomUUID().slice(0, 8)}:`;
// `monitor()` opens a connection of its own; `redis` stays an ordinary client.
const redis = new Redis('redis://127.0.0.1:6379');
let monitor: Awaited<ReturnType<Redis['monitor']>>;
const seen: string[] = [];
let running: RunningAgent;

beforeAll(async () => {
  monitor = await redis.monitor();
  monitor.on('monitor', (_time: string, args: string[]) => {
    if (args.some((arg) => arg.startsWith(PREFIX))) seen.push(args.join(' '));
  });
  const fixture = createFixtureAgent();
  running = await runAgent(fixture.core, fixture.agent, {
    port: 0,
    env: { AGENT_NAME: 'fixture', LOG_LEVEL: 'error', SESSION_BACKEND: 'kv', SESSION_KV_URL: 'redis://127.0.0.1:6379', KV_PREFIX: PREFIX },
  });
});
afterAll(async () => {
  await running.close();
  monitor.disconnect();
  await deleteKeys(redis, PREFIX);
  await redis.quit();
});

async function query(text: string, token?: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${running.url}/query`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query: text }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

/** The commands this run sent to Redis while `action` ran (MONITOR delivers them shortly after). */
async function commandsDuring(action: () => Promise<void>): Promise<string[]> {
  // A marker command before and after brackets the action's commands in the monitor stream.
  const marker = `${PREFIX}marker:${randomUUID()}`;
  await redis.call('EXISTS', `${marker}:start`);
  const from = await waitForCommand(`${marker}:start`);
  await action();
  await redis.call('EXISTS', `${marker}:end`);
  const to = await waitForCommand(`${marker}:end`);
  return seen.slice(from + 1, to);
}

async function waitForCommand(fragment: string): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const at = seen.findIndex((command) => command.includes(fragment));
    if (at >= 0) return at;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`MONITOR never showed ${fragment}`);
}

describe('kv sessions: Redis round trips of the front door', () => {
  it('an anonymous request writes nothing to Redis, even when its task uses session context', async () => {
    let answers: Record<string, unknown>[] = [];
    const commands = await commandsDuring(async () => {
      answers = [await query('turn'), await query('turn'), await query('hello')];
    });
    expect(commands).toEqual([]);
    // Each anonymous request is its own conversation: its context lives for that request only.
    expect(answers.map((a) => (a.result as { turns?: number }).turns)).toEqual([1, 1, undefined]);
    expect(new Set(answers.map((a) => a.context_id)).size).toBe(3);
    const keys = await scanKeys(redis, `${PREFIX}context:`);
    expect(keys).toEqual([]);
  });

  it('a request with a session token costs one round trip when its task does not touch the context', async () => {
    const started = (await (await fetch(`${running.url}/session/start`, { method: 'POST' })).json()) as { session_token: string; context_id: string };
    let answer: Record<string, unknown> = {};
    const commands = await commandsDuring(async () => {
      answer = await query('hello', started.session_token);
    });
    expect(answer.context_id).toBe(started.context_id);
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatch(/^get /i);
  });

  it('a session still keeps its context across requests in Redis', async () => {
    const started = (await (await fetch(`${running.url}/session/start`, { method: 'POST' })).json()) as { session_token: string; context_id: string };
    const first = await query('turn', started.session_token);
    const second = await query('turn', started.session_token);
    expect([first, second].map((a) => (a.result as { turns: number }).turns)).toEqual([1, 2]);
    expect(await scanKeys(redis, `${PREFIX}context:${started.context_id}`)).toHaveLength(1);
  });
});
