import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import { serviceMetricsText } from '../../runtime/core/telemetry/service-metrics.js';
import { StoreUnavailableError } from '../../runtime/core/errors/store-unavailable-error.js';
import { KvSessionStore } from '../../runtime/sessions/kv-session-store.js';
import type { SessionStore } from '../../runtime/sessions/session-store.js';
import { freePort, RedisProcess } from '../support/redis-process.js';

// Our own redis-server child on a free port, killed and restarted under the store.

const servers: RedisProcess[] = [];
const stores: SessionStore[] = [];

afterAll(async () => {
  await Promise.allSettled(stores.map((store) => store.close()));
  await Promise.allSettled(servers.map((server) => server.kill()));
});

async function expectUnavailable(call: Promise<unknown>, port: number): Promise<void> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreUnavailableError);
  expect(FrameworkError.isInstance(error) && error.code).toBe('store_unavailable');
  expect((error as Error).message).toContain(`redis://127.0.0.1:${port}`);
}

/** Retries `call` until it succeeds, for at most ~10 s. */
async function eventually<T>(call: () => Promise<T>): Promise<T> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      return await call();
    } catch (error) {
      lastError = error;
      await sleep(100);
    }
  }
  throw lastError;
}

describe('KvSessionStore when Redis goes away', () => {
  it('fails every call with StoreUnavailableError, then recovers by itself', async () => {
    const server = new RedisProcess(await freePort());
    servers.push(server);
    await server.start();
    const store = new KvSessionStore({ url: server.url, ttlSeconds: 60 });
    stores.push(store);

    const { token, contextId } = await store.start();
    expect((await store.resolve(token))?.contextId).toBe(contextId);
    await store.updateContext(contextId, { a: 1 });

    await server.kill();
    await expectUnavailable(store.start(), server.port);
    await expectUnavailable(store.resolve(token), server.port);
    await expectUnavailable(store.getContext(contextId), server.port);
    await expectUnavailable(store.updateContext(contextId, { b: 2 }), server.port);
    await expectUnavailable(store.rememberConversation('fp', contextId), server.port);
    await expectUnavailable(store.findConversation('fp'), server.port);
    // A scrape still answers: the gauges read from Redis leave their samples out rather than report a count they do not know.
    const { text } = await serviceMetricsText();
    expect(text).toMatch(/^# TYPE sessions_active gauge$/m);
    expect(text).not.toMatch(/^sessions_active\{/m);
    expect(text).not.toMatch(/^approvals_pending\{/m);

    await server.start();
    // The restarted server is empty (no persistence): new sessions work on the same store.
    const again = await eventually(() => store.start());
    expect((await store.resolve(again.token))?.contextId).toBe(again.contextId);
    expect(await store.updateContext(again.contextId, { b: 2 })).toEqual({ b: 2 });
    expect((await serviceMetricsText()).text).toMatch(/^sessions_active\{backend="kv"\} 1$/m);
  });

  it('fails fast when Redis is down at start-up, and works once it comes up', async () => {
    const server = new RedisProcess(await freePort());
    servers.push(server);
    const store = new KvSessionStore({ url: server.url, ttlSeconds: 60 });
    stores.push(store);

    await expectUnavailable(store.start(), server.port);

    await server.start();
    const started = await eventually(() => store.start());
    expect((await store.resolve(started.token))?.contextId).toBe(started.contextId);
  });

  it('settles calls that are in flight when Redis dies', async () => {
    const server = new RedisProcess(await freePort());
    servers.push(server);
    await server.start();
    const store = new KvSessionStore({ url: server.url, ttlSeconds: 60 });
    stores.push(store);
    await store.start();

    const calls = Array.from({ length: 500 }, (_, i) =>
      store.updateContext('busy', { [`k${i}`]: 'x'.repeat(1000) }).then(
        () => 'ok',
        (error: unknown) => (error instanceof StoreUnavailableError ? 'unavailable' : error),
      ),
    );
    await server.kill();
    for (const outcome of await Promise.all(calls)) expect(['ok', 'unavailable']).toContain(outcome);
  });
});
