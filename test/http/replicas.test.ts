import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { deleteKeys, scanKeys } from '../support/redis-keys.js';
import { startAgentProcess, type ChildAgent } from '../support/processes.js';

// Two real `framework-cli serve agent` processes (the compiled CLI, so run `npm run build` first).

const started: ChildAgent[] = [];
const redis = new Redis('redis://127.0.0.1:6379');
afterAll(async () => {
  await Promise.all(started.map((agent) => agent.stop()));
  await redis.quit();
});

async function startPair(env: Record<string, string>): Promise<[ChildAgent, ChildAgent]> {
  const pair = await Promise.all([startAgentProcess({ env }), startAgentProcess({ env })]);
  started.push(...pair);
  return pair;
}

async function query(agent: ChildAgent, token: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${agent.url}/query`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: 'hello replicas' }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function startSession(agent: ChildAgent): Promise<{ session_token: string; context_id: string }> {
  const response = await fetch(`${agent.url}/session/start`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  return (await response.json()) as { session_token: string; context_id: string };
}

describe('replicas', () => {
  it('with SESSION_BACKEND=kv, a token from one process resolves to the same context on another', async () => {
    const prefix = `fwtest:${randomUUID().slice(0, 8)}:`;
    // The example agent counts turns in the session context: the count must carry across processes.
    const [a, b] = await startPair({ SESSION_BACKEND: 'kv', SESSION_KV_URL: 'redis://127.0.0.1:6379', KV_PREFIX: prefix });
    try {
      const session = await startSession(a);
      const first = await query(a, session.session_token);
      const second = await query(b, session.session_token);
      const third = await query(a, session.session_token);
      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      expect(first.body.context_id).toBe(session.context_id);
      expect(second.body.context_id).toBe(session.context_id);
      expect([first, second, third].map((r) => (r.body.result as { turn: number }).turn)).toEqual([1, 2, 3]);
      // The shared store holds the session under the run's prefix, never the token itself.
      const keys = await scanKeys(redis, prefix);
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.join(' ')).not.toContain(session.session_token);
    } finally {
      await deleteKeys(redis, prefix);
    }
  });

  it('with SESSION_BACKEND=memory, the other process does not know the token', async () => {
    const [a, b] = await startPair({ SESSION_BACKEND: 'memory' });
    const session = await startSession(a);
    expect((await query(a, session.session_token)).status).toBe(200);
    const other = await query(b, session.session_token);
    expect(other.status).toBe(401);
    expect(other.body.code).toBe('session_invalid');
  });

  it('a process with a bad configuration exits with one message naming every bad variable', async () => {
    const error = await startAgentProcess({ env: { SESSION_BACKEND: 'kv', SESSION_TTL: 'forever', AGENT_PORT: 'x' } }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toContain('SESSION_TTL');
    expect(message).toContain('SESSION_KV_URL');
  });
});
