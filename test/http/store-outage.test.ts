import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/index.js';
import { waitFor } from '../support/net.js';
import { freePort, RedisProcess } from '../support/redis-process.js';
import { createFixtureAgent } from './agent-fixture.js';
import { runAgent } from '../../runtime/agent/run-agent.js';

// A private redis-server child, so the test can kill and restart it.
let redis: RedisProcess;
let running: RunningAgent;

beforeAll(async () => {
  redis = new RedisProcess(await freePort());
  await redis.start();
  const fixture = createFixtureAgent();
  running = await runAgent(fixture.core, fixture.agent, {
    port: 0,
    env: { AGENT_NAME: 'fixture', LOG_LEVEL: 'error', SESSION_BACKEND: 'kv', SESSION_KV_URL: redis.url },
  });
});
afterAll(async () => {
  await running?.close();
  await redis?.kill();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${running.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('Redis outage behind SESSION_BACKEND=kv', () => {
  it('answers 503 naming the store while Redis is down, stays up, and recovers by itself', async () => {
    const before = await post('/session/start', {});
    expect(before.status).toBe(200);
    const { session_token: token } = (await before.json()) as { session_token: string };
    const auth = { Authorization: `Bearer ${token}` };
    expect((await post('/query', { query: 'turn' }, auth)).status).toBe(200);

    await redis.kill();

    for (const response of [await post('/session/start', {}), await post('/stream', { query: 'turn' }, auth), await post('/query', { query: 'x' }, auth)]) {
      expect(response.status).toBe(503);
      const body = (await response.json()) as { code: string; message: string };
      expect(body.code).toBe('store_unavailable');
      expect(body.message).toContain(`127.0.0.1:${redis.port}`);
    }
    // Requests that need no session still work, context included: an anonymous conversation's context lives in process for its request only.
    const anonymous = await (await post('/stream', { query: 'turn' })).text();
    expect(anonymous).toContain('event: result\ndata: {"turns":1,');
    expect((await fetch(`${running.url}/health`)).status).toBe(200);

    await redis.start();
    await waitFor(async () => (await post('/session/start', {})).status === 200, 'the agent to use Redis again', 15_000);
    // The old session went with the Redis data (this server keeps nothing on disk): a clear 401, and new sessions work.
    expect((await post('/query', { query: 'turn' }, auth)).status).toBe(401);
    const { session_token: fresh } = (await (await post('/session/start', {})).json()) as { session_token: string };
    const turn = (await (await post('/query', { query: 'turn' }, { Authorization: `Bearer ${fresh}` })).json()) as { result: { turns: number } };
    expect(turn.result.turns).toBe(1);
  });
});
