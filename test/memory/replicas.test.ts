import { describe, expect, it } from 'vitest';
import { KvMemoryStore } from '../../runtime/memory/kv-memory-store.js';
import { completeRecord, LongTermRecordInputSchema } from '../../runtime/memory/memory-records.js';
import { REDIS_URL, redisScope } from '../support/redis-scope.js';
import { call, modelRuntime, openMemory, privateRedis, remember, search } from './support.js';

const scope = redisScope();
const models = modelRuntime();
const open = (options: { keyPrefix?: string; kvUrl?: string } = {}) =>
  scope.track(openMemory({ keyPrefix: options.keyPrefix ?? scope.prefix, ollamaHost: models.url(), ...(options.kvUrl ? { kvUrl: options.kvUrl } : {}) }));
const ids = async (app: Parameters<typeof search>[0], namespace: string) =>
  (await search(app, { text: 'what is known', namespace: { eq: namespace }, limit: 100 })).memories.map((m) => m.id).sort();

const privateServer = privateRedis();

describe('memory across restarts and replicas', () => {
  it('a new service on the same Redis prefix finds everything, its vector cache included', async () => {
    const keyPrefix = `${scope.prefix}restart:`;
    const first = open({ keyPrefix });
    await remember(first.app, [
      { id: 'r1', text: 'The deployment window is Tuesday night', namespace: 'ops' },
      { id: 'r2', text: 'The on-call engineer this week is Dana', namespace: 'ops' },
    ]);
    await call(first.app, 'PUT', '/v1/working-memory/ops-chat?namespace=ops', { messages: [{ role: 'user', content: 'who is on call?' }] });
    await first.close();

    const second = open({ keyPrefix });
    await second.store.load();
    expect(second.store.cachedRecords).toBe(2);
    const found = await search(second.app, { text: 'When can we deploy?', namespace: { eq: 'ops' } });
    expect(found.memories[0]!.id).toBe('r1');
    expect((await call(second.app, 'GET', '/v1/working-memory/ops-chat?namespace=ops')).body.messages[0].content).toBe('who is on call?');
  });

  it("two services on one prefix see each other's writes and deletes", async () => {
    const keyPrefix = `${scope.prefix}replicas:`;
    const a = open({ keyPrefix });
    const b = open({ keyPrefix });
    await remember(a.app, [{ id: 'a1', text: 'Written by replica A', namespace: 'rep' }]);
    expect(await ids(b.app, 'rep')).toEqual(['a1']);
    await remember(b.app, [{ id: 'b1', text: 'Written by replica B', namespace: 'rep' }]);
    expect(await ids(a.app, 'rep')).toEqual(['a1', 'b1']);
    // B replaces A's record, A deletes B's: each sees the other's change.
    await remember(b.app, [{ id: 'a1', text: 'Rewritten by replica B', namespace: 'rep' }]);
    expect((await search(a.app, { text: 'rewritten', namespace: { eq: 'rep' }, limit: 1 })).memories[0]).toMatchObject({
      id: 'a1',
      text: 'Rewritten by replica B',
    });
    await call(a.app, 'DELETE', '/v1/long-term-memory?memory_ids=b1');
    expect(await ids(b.app, 'rep')).toEqual(['a1']);
    // Deduplication holds across replicas too.
    const dup = await remember(a.app, [{ id: 'a2', text: 'Rewritten by replica B', namespace: 'rep' }]);
    expect(dup.ids).toEqual(['a1']);
  });

  it('a replica whose Redis came back empty drops what it had cached, and follows new writes', async () => {
    const redis = privateServer();
    const a = open({ keyPrefix: 'mem-restart:', kvUrl: redis.url });
    const b = open({ keyPrefix: 'mem-restart:', kvUrl: redis.url });
    await remember(a.app, [
      { id: 'old1', text: 'Remembered before the crash', namespace: 'crash' },
      { id: 'old2', text: 'Also remembered before the crash', namespace: 'crash' },
    ]);
    expect(await ids(b.app, 'crash')).toEqual(['old1', 'old2']);

    await redis.kill();
    await redis.start(); // no persistence: empty
    await expect.poll(async () => (await call(a.app, 'GET', '/v1/health')).status, { timeout: 10_000 }).toBe(200);
    // As many writes as before the crash: the change counters are equal, only the epoch tells the histories apart.
    await remember(a.app, [
      { id: 'new1', text: 'Remembered after the crash', namespace: 'crash' },
      { id: 'new2', text: 'Also remembered after the crash', namespace: 'crash' },
    ]);
    expect(await ids(b.app, 'crash')).toEqual(['new1', 'new2']);
    expect(await ids(a.app, 'crash')).toEqual(['new1', 'new2']);
  });

  it('a replica that fell behind the trimmed change log reloads', async () => {
    const keyPrefix = `${scope.prefix}trim:`;
    const a = open({ keyPrefix });
    const b = open({ keyPrefix });
    await remember(a.app, [{ id: 'first', text: 'The first memory', namespace: 'trim' }]);
    expect(await ids(b.app, 'trim')).toEqual(['first']);
    await remember(
      a.app,
      Array.from({ length: 30 }, (_, i) => ({ id: `bulk${i}`, text: `Bulk memory number ${i}`, namespace: 'trim' })),
    );
    await call(a.app, 'DELETE', '/v1/long-term-memory?memory_ids=first');
    // Drop the whole change log, as trimming does to a replica that lags far behind.
    await scope.admin().xtrim(`${keyPrefix}mem:log`, 'MAXLEN', 0);
    const seen = await ids(b.app, 'trim');
    expect(seen).toHaveLength(30);
    expect(seen).not.toContain('first');
  });

  it('refuses to mix vectors of two embedding models under one prefix', async () => {
    const keyPrefix = `${scope.prefix}models:`;
    const first = scope.track(new KvMemoryStore({ url: REDIS_URL, keyPrefix, embeddingModel: 'model-a' }));
    const record = (id: string) => completeRecord({ record: LongTermRecordInputSchema.parse({ id, text: `text ${id}` }), at: new Date().toISOString() });
    await first.putRecords({ records: [{ record: record('a1'), vector: [1, 0, 0] }], deduplicate: true });
    const second = scope.track(new KvMemoryStore({ url: REDIS_URL, keyPrefix, embeddingModel: 'model-b' }));
    await expect(second.search({ vector: [1, 0, 0], filters: {}, limit: 1, offset: 0 })).rejects.toMatchObject({
      code: 'invalid_config',
      message: expect.stringContaining('EMBEDDING_MODEL: is "model-b"; set EMBEDDING_MODEL=model-a'),
    });
    await expect(second.putRecords({ records: [{ record: record('b1'), vector: [0, 1, 0] }], deduplicate: true })).rejects.toMatchObject({
      code: 'invalid_config',
    });
    await expect(first.putRecords({ records: [{ record: record('a2'), vector: [0, 1] }], deduplicate: true })).rejects.toMatchObject({
      code: 'invalid_config',
      message: expect.stringContaining('2-dimensional'),
    });
  });
});
