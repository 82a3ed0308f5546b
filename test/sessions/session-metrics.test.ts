import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { serviceMetricsText } from '../../runtime/core/telemetry/service-metrics.js';
import { PENDING_PLAN_KEY } from '../../runtime/planning/plan-records.js';
import { InProcessSessionStore } from '../../runtime/sessions/in-process-session-store.js';
import { KvSessionStore } from '../../runtime/sessions/kv-session-store.js';
import { WAITING_CONTEXT_KEYS } from '../../runtime/sessions/pending-waits.js';
import type { SessionStore } from '../../runtime/sessions/session-store.js';
import { PENDING_TOOL_APPROVAL_KEY } from '../../runtime/tools/tool-approval.js';
import { freePort, RedisProcess } from '../support/redis-process.js';
import { redisScope, REDIS_URL } from '../support/redis-scope.js';

const { prefix, track } = redisScope();

/** A sample of /metrics, as text; undefined when absent. */
const sample = async (series: string) => {
  const line = (await serviceMetricsText()).text.split('\n').find((l) => l.startsWith(`${series} `));
  return line?.slice(series.length + 1);
};
const active = (backend = 'memory') => sample(`sessions_active{backend="${backend}"}`);
const pending = (kind: 'plan' | 'tool_call') => sample(`approvals_pending{kind="${kind}"}`);

const T0 = Date.parse('2026-06-01T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

describe('sessions_active on /metrics', () => {
  it('counts the sessions of the open in-process stores that have not expired, and forgets a closed store', async () => {
    let now = T0;
    const short = new InProcessSessionStore({ ttlSeconds: 60, now: () => now });
    const long = new InProcessSessionStore({ ttlSeconds: 3600, now: () => now });
    await short.start();
    await short.start();
    await long.resolve((await long.start()).token);
    expect(await active()).toBe('3');
    now += 61_000;
    expect(await active()).toBe('1');
    await long.close();
    expect(await active()).toBe('0');
    await short.close();
  });

  it('kv: counts the sessions every replica started on the same Redis and prefix once, until they expire', async () => {
    let now = Date.now();
    const clock = () => now;
    // Two replicas (each its own client), and a third store under another prefix: another deployment.
    const a = track(new KvSessionStore({ url: REDIS_URL, ttlSeconds: 60, keyPrefix: prefix, now: clock }));
    const b = track(new KvSessionStore({ url: REDIS_URL, ttlSeconds: 60, keyPrefix: prefix, now: clock }));
    const other = track(new KvSessionStore({ url: REDIS_URL, ttlSeconds: 600, keyPrefix: `${prefix}other:`, now: clock }));
    expect(await active('kv')).toBe('0');
    await Promise.all([a.start(), a.start(), b.start()]);
    await other.start();
    expect(await active('kv')).toBe('4');
    // A replica that never started one reads the same count from Redis.
    const c = track(new KvSessionStore({ url: REDIS_URL, ttlSeconds: 60, keyPrefix: prefix, now: clock }));
    await a.close();
    await b.close();
    expect(await active('kv')).toBe('4');
    now += 61_000;
    expect(await active('kv')).toBe('1');
    await c.start();
    expect(await active('kv')).toBe('2');
  });

  it('kv: resolving a bearer token is one GET, and a session start one transaction', async () => {
    // A Redis of its own: on the shared one, other test files' commands can reach MONITOR's connection in the same
    // read as its OK, which ioredis (5.x) then takes for a reply no command asked for ("Command queue state error").
    const server = new RedisProcess(await freePort());
    await server.start();
    const store = track(new KvSessionStore({ url: server.url, ttlSeconds: 60, keyPrefix: `${prefix}monitor:` }));
    const commands: { args: string[]; source: string }[] = [];
    try {
      const { token } = await store.start();
      const monitor = await new Redis(server.url).monitor();
      monitor.on('monitor', (_time: string, args: string[], source: string) => commands.push({ args, source }));
      try {
        await new Redis(server.url).quit(); // a round trip on another connection, so MONITOR is attached before what follows
        await store.resolve(token);
        await store.start();
        await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        // Closed before the store is: otherwise the store's QUIT may still reach MONITOR while it disconnects.
        await new Promise<void>((resolve) => {
          monitor.once('end', () => resolve());
          monitor.disconnect();
        });
      }
    } finally {
      await store.close();
      await server.kill();
    }
    // The store's connections are the ones that sent commands on its keys (the shared Redis has other clients):
    // its session reader for the bearer lookup, its client for the rest.
    const sources = new Set(commands.filter(({ args }) => args.some((arg) => arg.includes(`${prefix}monitor:`))).map(({ source }) => source));
    const bySource = [...sources].map((source) => commands.filter((c) => c.source === source).map(({ args }) => args[0]!.toLowerCase()));
    expect(bySource.sort((a, b) => a.length - b.length)).toEqual([['get'], ['multi', 'set', 'zadd', 'zremrangebyscore', 'expire', 'exec']]);
  });
});

describe('approvals_pending on /metrics', () => {
  it('knows the keys the tool gate and the planner keep their waits under', () => {
    expect(WAITING_CONTEXT_KEYS[PENDING_TOOL_APPROVAL_KEY]).toBe('tool_call');
    expect(WAITING_CONTEXT_KEYS[PENDING_PLAN_KEY]).toBe('plan');
  });

  /** Waits set on two stores sharing state; decided by a claim, a removal and an expiry. */
  async function waits(backend: string, stores: (now: () => number) => [SessionStore, SessionStore]) {
    let now = Date.now();
    const [a, b] = stores(() => now);
    await a.updateContext('c1', { [PENDING_PLAN_KEY]: { plan_id: 'p1', expires_at: iso(now + 3_600_000) }, note: 'x' });
    await b.updateContext('c2', { [PENDING_PLAN_KEY]: { plan_id: 'p2' } }); // stored before plans kept expires_at: the context's expiry
    const approval = { approval_id: 'a1', expires_at: iso(now + 10_000) };
    await b.updateContext('c3', { [PENDING_TOOL_APPROVAL_KEY]: approval });
    expect([await pending('plan'), await pending('tool_call')], backend).toEqual(['2', '1']);
    // A claim (the decision's one winner) and a removal end a wait; a failed claim does not.
    expect(await a.claimContextValue('c1', PENDING_PLAN_KEY, { plan_id: 'other' })).toBe(false);
    expect(await pending('plan')).toBe('2');
    expect(await b.claimContextValue('c1', PENDING_PLAN_KEY, { plan_id: 'p1', expires_at: iso(now + 3_600_000) })).toBe(true);
    expect(await pending('plan')).toBe('1');
    await a.updateContext('c2', { [PENDING_PLAN_KEY]: undefined });
    expect(await pending('plan')).toBe('0');
    // Past its own expiry, a tool call no longer waits, though the context lives on.
    now += 10_001;
    expect(await pending('tool_call'), backend).toBe('0');
    expect(await a.getContext('c3')).toHaveProperty(PENDING_TOOL_APPROVAL_KEY);
    // A wait is gone when its context is (idle past the TTL).
    await a.updateContext('c4', { [PENDING_PLAN_KEY]: { plan_id: 'p4' } });
    expect(await pending('plan')).toBe('1');
    now += 61_000;
    expect(await pending('plan')).toBe('0');
  }

  it('memory: counted in the open stores', async () => {
    let shared: InProcessSessionStore | undefined;
    await waits('memory', (now) => {
      shared = new InProcessSessionStore({ ttlSeconds: 60, now });
      return [shared, shared];
    });
    await shared!.close();
    expect(await pending('plan')).toBeUndefined();
  });

  it('kv: counted in Redis, shared by the replicas', async () => {
    await waits('kv', (now) => [
      track(new KvSessionStore({ url: REDIS_URL, ttlSeconds: 60, keyPrefix: `${prefix}waits:`, now })),
      track(new KvSessionStore({ url: REDIS_URL, ttlSeconds: 60, keyPrefix: `${prefix}waits:`, now })),
    ]);
  });
});
