import { afterEach, describe, expect, it } from 'vitest';
import { listen, type Listening } from '../../runtime/core/server/listen.js';
import { createFrontDoor } from '../../runtime/http/front-door.js';
import { InProcessSessionStore } from '../../runtime/sessions/in-process-session-store.js';
import { KvSessionStore } from '../../runtime/sessions/kv-session-store.js';
import type { SessionStore } from '../../runtime/sessions/session-store.js';
import { createFixtureAgent } from '../http/agent-fixture.js';
import { REDIS_URL, redisScope } from '../support/redis-scope.js';

// Attack: 102,000 unauthenticated POST /session/start in a minute evicted a
// live session of the memory backend. Starts are now limited per client
// address (429 + Retry-After, shared by replicas on Redis), and eviction
// takes sessions never used before any in use.

const scope = redisScope();
const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});

async function frontDoor(sessions: SessionStore, perMinute: number): Promise<Listening> {
  const fixture = createFixtureAgent();
  const app = createFrontDoor({ core: fixture.core, agent: { name: 'fixture', version: '1.0.0' }, sessions, sessionStartsPerMinute: perMinute });
  const listening = await listen(app, { host: '127.0.0.1', port: 0 });
  opened.push(listening);
  return listening;
}

/** A clock in the middle of a minute, so no window turns during a test. */
const now = () => Math.floor(Date.now() / 60_000) * 60_000 + 30_000;

const start = (url: string) => fetch(`${url}/session/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });

describe('a flood of /session/start', () => {
  it('is refused past the per-address limit with 429, Retry-After and a JSON body; other routes keep working', async () => {
    const sessions = new InProcessSessionStore({ ttlSeconds: 60, now });
    opened.push(sessions);
    const door = await frontDoor(sessions, 5);
    const answers = await Promise.all(Array.from({ length: 8 }, () => start(door.url)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    const refused = answers.find((a) => a.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ code: 'rate_limited' });
    expect((await fetch(`${door.url}/health`)).status).toBe(200);
  });

  it('shares the count between replicas on one Redis', async () => {
    const a = scope.track(new KvSessionStore({ url: REDIS_URL, keyPrefix: scope.prefix, ttlSeconds: 60, now }));
    const b = scope.track(new KvSessionStore({ url: REDIS_URL, keyPrefix: scope.prefix, ttlSeconds: 60, now }));
    const [doorA, doorB] = [await frontDoor(a, 4), await frontDoor(b, 4)];
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await start(doorA.url)).status, (await start(doorB.url)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
  });

  it('never evicts a session in use to make room for new ones', async () => {
    const sessions = new InProcessSessionStore({ ttlSeconds: 3600, maxEntries: 50 });
    opened.push(sessions);
    const live = await sessions.start();
    expect(await sessions.resolve(live.token)).toMatchObject({ contextId: live.contextId });
    const idle = await sessions.start();
    for (let i = 0; i < 5_000; i++) await sessions.start();
    expect(await sessions.resolve(live.token)).toMatchObject({ contextId: live.contextId });
    expect(await sessions.resolve(idle.token)).toBeUndefined();
    expect(sessions.entryCounts().sessions).toBe(50);
  });
});
