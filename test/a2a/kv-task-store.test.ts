import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Task, TaskState } from '@a2a-js/sdk';
import { A2AError, RequestMalformedError } from '@a2a-js/sdk/errors';
import { InMemoryTaskStore, ServerCallContext } from '@a2a-js/sdk/server';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KvTaskStore } from '../../runtime/a2a/kv-task-store.js';
import { encodeTaskPageToken } from '../../runtime/a2a/task-list-page.js';
import { ConfigError } from '../../runtime/core/errors/config-error.js';
import { StoreUnavailableError } from '../../runtime/core/errors/store-unavailable-error.js';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import { closeKvClient, createKvClient } from '../../runtime/core/kv-client.js';
import { deleteKeys } from '../support/redis-keys.js';
import { allPages, caller, FIVE, ids, LIST_CASES, listRequest, makeTask, planner, withoutTokens } from './task-fixtures.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const DOWN_URL = 'redis://127.0.0.1:1';
const runPrefix = `fwtest:${randomUUID()}:`;
const closables: Array<{ close(): Promise<void> }> = [];
let admin: Redis;
let testNumber = 0;
let prefix = '';

/** A store on its own client, under this test's key prefix. */
function open(options: { ttlSeconds?: number; url?: string } = {}): KvTaskStore {
  const url = options.url ?? REDIS_URL;
  const store = new KvTaskStore({
    client: createKvClient({ url }),
    location: url,
    keyPrefix: prefix,
    ownsClient: true,
    ...(options.ttlSeconds === undefined ? {} : { ttlSeconds: options.ttlSeconds }),
  });
  closables.push(store);
  return store;
}

beforeAll(() => {
  admin = new Redis(REDIS_URL);
});

afterEach(async () => {
  await Promise.all(closables.splice(0).map((store) => store.close()));
  await deleteKeys(admin, prefix);
  testNumber += 1;
  prefix = `${runPrefix}${testNumber}:`;
});

afterAll(async () => {
  await deleteKeys(admin, runPrefix);
  await admin.quit();
});

prefix = `${runPrefix}${testNumber}:`;

describe('KvTaskStore', () => {
  it('round-trips a task with a status message, text, data and raw parts, artifacts and metadata', async () => {
    const original = Task.fromJSON({
      id: 'task-rt',
      contextId: 'ctx-rt',
      status: {
        state: 'TASK_STATE_INPUT_REQUIRED',
        timestamp: '2025-02-03T04:05:06.789Z',
        message: {
          messageId: 'm-1',
          contextId: 'ctx-rt',
          taskId: 'task-rt',
          role: 'ROLE_AGENT',
          parts: [{ text: 'Which city?' }, { data: { choices: ['Oslo', 'Lima'], n: 2 } }, { raw: 'AAEC/w==', mediaType: 'application/octet-stream' }],
          metadata: { hint: true },
        },
      },
      artifacts: [{ artifactId: 'a-1', name: 'draft', parts: [{ text: 'partial' }] }],
      history: [{ messageId: 'm-0', role: 'ROLE_USER', parts: [{ text: 'Book a trip' }] }],
      metadata: { priority: 3, tags: ['x', 'y'], nested: { ok: null } },
    });
    const store = open();
    await store.save(original, planner);

    const loaded = await store.load('task-rt', planner);
    expect(loaded).toEqual(Task.fromJSON(Task.toJSON(original)));
    expect(loaded).not.toBe(original);
    expect(loaded?.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const raw = loaded?.status?.message?.parts[2]?.content;
    expect(raw?.$case).toBe('raw');
    expect(Buffer.isBuffer(raw?.value)).toBe(true);
    expect([...(raw?.value as Buffer)]).toEqual([0, 1, 2, 255]);

    // The documented layout: protocol JSON under the task key, the id in the owner's index.
    const stored = await admin.get(`${prefix}a2a:task::planner:task-rt`);
    expect(JSON.parse(stored ?? 'null')).toEqual(Task.toJSON(original));
    expect(await admin.zrange(`${prefix}a2a:tasks::planner`, 0, -1)).toEqual(['task-rt']);
    expect(await store.load('absent', planner)).toBeUndefined();
  });

  it('overwrites a task saved again under the same id', async () => {
    const store = open();
    await store.save(makeTask({ id: 'ow', state: 'TASK_STATE_WORKING', timestamp: '2025-01-01T00:00:00.000Z' }), planner);
    await store.save(makeTask({ id: 'ow', state: 'TASK_STATE_COMPLETED', timestamp: '2025-01-01T00:00:09.000Z' }), planner);
    const loaded = await store.load('ow', planner);
    expect(loaded?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(loaded?.status?.timestamp).toBe('2025-01-01T00:00:09.000Z');
    const page = await store.list(listRequest(), planner);
    expect(ids(page)).toEqual(['ow']);
    expect(page.totalSize).toBe(1);
  });

  it('lets a second store (a restarted agent) load and list what the first saved', async () => {
    const first = open();
    await first.save(makeTask({ id: 'survivor', timestamp: '2025-01-01T00:00:00.000Z' }), planner);
    await first.close();
    const second = open();
    expect((await second.load('survivor', planner))?.id).toBe('survivor');
    expect(ids(await second.list(listRequest(), planner))).toEqual(['survivor']);
  });

  it('keeps owners and tenants apart, even when their names contain ":"', async () => {
    const store = open();
    await store.save(makeTask({ id: 'mine' }), planner);
    for (const other of [caller('critic'), caller('planner', 'acme'), new ServerCallContext()]) {
      expect(await store.load('mine', other)).toBeUndefined();
      expect((await store.list(listRequest(), other)).totalSize).toBe(0);
    }
    expect(await store.load('mine', planner)).toBeDefined();

    // Unescaped, both scopes would be the key prefix "a:b:c".
    const left = caller('c', 'a:b');
    const right = caller('b:c', 'a');
    await store.save(makeTask({ id: 'same-id', contextId: 'left' }), left);
    await store.save(makeTask({ id: 'same-id', contextId: 'right' }), right);
    expect((await store.load('same-id', left))?.contextId).toBe('left');
    expect((await store.load('same-id', right))?.contextId).toBe('right');
    expect((await store.list(listRequest(), left)).totalSize).toBe(1);
  });

  it('scopes callers without a user as "unknown", like the SDK', async () => {
    const store = open();
    await store.save(makeTask({ id: 'anon' }), new ServerCallContext());
    expect(await store.load('anon', caller('unknown'))).toBeDefined();
    expect(await store.load('anon', planner)).toBeUndefined();
  });

  it('sets the TTL on the task and on the index, and refreshes it on save', async () => {
    const store = open({ ttlSeconds: 30 });
    expect(store.ttlSeconds).toBe(30);
    await store.save(makeTask({ id: 'ttl' }), planner);
    for (const key of [`${prefix}a2a:task::planner:ttl`, `${prefix}a2a:tasks::planner`]) {
      await admin.expire(key, 5);
    }
    await store.save(makeTask({ id: 'ttl' }), planner);
    for (const key of [`${prefix}a2a:task::planner:ttl`, `${prefix}a2a:tasks::planner`]) {
      const pttl = await admin.pttl(key);
      expect(pttl, key).toBeGreaterThan(25_000);
      expect(pttl, key).toBeLessThanOrEqual(30_000);
    }
    expect(open().ttlSeconds).toBe(3600);
    expect(() => open({ ttlSeconds: 0 })).toThrow(ConfigError);
  });

  it('lets tasks expire, skips expired ids in list and prunes them from the index', async () => {
    const store = open({ ttlSeconds: 1 });
    await store.save(makeTask({ id: 'old', timestamp: '2025-01-01T00:00:00.000Z' }), planner);
    await sleep(600);
    // Keeps the index alive after 'old' has expired.
    await store.save(makeTask({ id: 'keep', timestamp: '2025-01-01T00:00:01.000Z' }), planner);
    await sleep(500);
    expect(await store.load('old', planner)).toBeUndefined();
    expect(ids(await store.list(listRequest(), planner))).toEqual(['keep']);
    await store.save(makeTask({ id: 'new', timestamp: '2025-01-01T00:00:02.000Z' }), planner);
    expect(await admin.zrange(`${prefix}a2a:tasks::planner`, 0, -1)).toEqual(['keep', 'new']);

    // An id whose task is gone but is still indexed is skipped, not counted.
    const longer = open();
    const critic = caller('critic');
    for (const task of FIVE) await longer.save(task, critic);
    await admin.del(`${prefix}a2a:task::critic:t3`);
    const page = await longer.list(listRequest(), critic);
    expect(ids(page)).toEqual(['t5', 't2', 't4', 't1']);
    expect(page.totalSize).toBe(4);
  });

  it('treats a corrupt stored task as absent', async () => {
    const store = open();
    await admin.set(`${prefix}a2a:task::planner:bad`, '{not json', 'EX', 60);
    await admin.set(`${prefix}a2a:task::planner:other`, JSON.stringify({ id: 'someone-else' }), 'EX', 60);
    await admin.zadd(`${prefix}a2a:tasks::planner`, Date.now(), 'bad', Date.now(), 'other');
    expect(await store.load('bad', planner)).toBeUndefined();
    expect(await store.load('other', planner)).toBeUndefined();
    expect((await store.list(listRequest(), planner)).tasks).toEqual([]);
  });

  it('lists newest status first, then by id, with filters, pages and artifacts only on request', async () => {
    const store = open();
    for (const task of FIVE) await store.save(task, planner);

    const all = await store.list(listRequest(), planner);
    expect(ids(all)).toEqual(['t5', 't3', 't2', 't4', 't1']);
    expect(all).toMatchObject({ nextPageToken: '', pageSize: 50, totalSize: 5 });
    expect(all.tasks.every((task) => task.artifacts.length === 0)).toBe(true);
    const withArtifacts = await store.list(listRequest({ includeArtifacts: true }), planner);
    expect(withArtifacts.tasks.find((task) => task.id === 't2')?.artifacts[0]?.artifactId).toBe('art-t2');
    expect(await store.load('t2', planner)).toEqual(FIVE[1]);

    expect(ids(await store.list(listRequest({ contextId: 'ctx-b' }), planner))).toEqual(['t3', 't4']);
    expect(ids(await store.list(listRequest({ status: TaskState.TASK_STATE_COMPLETED }), planner))).toEqual(['t5', 't3', 't1']);
    const after = await store.list(listRequest({ statusTimestampAfter: '2025-01-01T00:00:02.000Z' }), planner);
    expect(ids(after)).toEqual(['t5', 't3', 't2']);
    expect(after.totalSize).toBe(3);
    const combined = listRequest({ contextId: 'ctx-a', status: TaskState.TASK_STATE_COMPLETED });
    expect(ids(await store.list(combined, planner))).toEqual(['t5', 't1']);

    const pages = await allPages(store, { pageSize: 2 });
    expect(pages.map(ids)).toEqual([['t5', 't3'], ['t2', 't4'], ['t1']]);
    expect(pages.map((page) => page.totalSize)).toEqual([5, 5, 5]);
    expect(pages.map((page) => page.pageSize)).toEqual([2, 2, 2]);
    expect(pages[0]?.nextPageToken).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(pages[2]?.nextPageToken).toBe('');
  });

  it('lists exactly as the SDK InMemoryTaskStore does', async () => {
    const kv = open();
    const memory = new InMemoryTaskStore();
    const extra = [makeTask({ id: 'no-time', contextId: 'ctx-b', state: 'TASK_STATE_SUBMITTED' }), ...FIVE];
    for (const task of extra) {
      await kv.save(task, planner);
      await memory.save(task, planner);
    }
    for (const params of LIST_CASES) {
      expect(withoutTokens(await allPages(kv, params)), JSON.stringify(params)).toEqual(withoutTokens(await allPages(memory, params)));
    }
  });

  it('rejects an undecodable page token with the SDK invalid-params error', async () => {
    const store = open();
    for (const task of FIVE) await store.save(task, planner);
    for (const pageToken of ['%%%not-base64%%%', Buffer.from('t5').toString('base64url'), encodeTaskPageToken({ timestamp: 'x', id: 'y' }).slice(3)]) {
      const error = await store.list(listRequest({ pageToken }), planner).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, pageToken).toBeInstanceOf(RequestMalformedError);
      expect(error).toBeInstanceOf(A2AError);
      expect((error as A2AError).reason).toBe('INVALID_PARAMS');
    }
    // Well-formed but naming no listed task: an empty page, as in the SDK.
    const stale = await store.list(listRequest({ pageToken: encodeTaskPageToken({ timestamp: '', id: 'gone' }) }), planner);
    expect(stale).toMatchObject({ tasks: [], nextPageToken: '', totalSize: 5 });
  });

  it('fails with StoreUnavailableError when Redis cannot be reached', async () => {
    const store = open({ url: DOWN_URL });
    const calls: Array<() => Promise<unknown>> = [
      () => store.save(makeTask({ id: 'x' }), planner),
      () => store.load('x', planner),
      () => store.list(listRequest(), planner),
    ];
    for (const call of calls) {
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(FrameworkError.isInstance(error) && error.code).toBe('store_unavailable');
      expect((error as Error).message).toContain(DOWN_URL);
    }
  });

  it('leaves a client it does not own open on close', async () => {
    const client = createKvClient({ url: REDIS_URL });
    const store = new KvTaskStore({ client, location: REDIS_URL, keyPrefix: prefix });
    await store.save(makeTask({ id: 'shared' }), planner);
    await store.close();
    expect(await client.ping()).toBe('PONG');
    await closeKvClient(client);
  });
});
