import { describe, expect, it } from 'vitest';
import { startEmbeddings } from '../support/embeddings.js';
import { freePort } from '../support/net.js';
import { redisScope } from '../support/redis-scope.js';
import { call, modelRuntime, openMemory, privateRedis, search } from './support.js';

const scope = redisScope();
const models = modelRuntime();

const privateServer = privateRedis();

describe('memory service outages', () => {
  it('answers 503 store_unavailable while Redis is down and recovers by itself', async () => {
    const redis = privateServer();
    const { app } = scope.track(openMemory({ keyPrefix: 'outage:', kvUrl: redis.url, ollamaHost: models.url() }));
    expect((await call(app, 'POST', '/v1/long-term-memory/', { memories: [{ id: 'o1', text: 'Written before the outage' }] })).status).toBe(200);
    expect((await call(app, 'GET', '/v1/health')).body).toEqual({ now: expect.any(Number), status: 'ok', kv_store: 'up' });

    await redis.kill();
    const health = await call(app, 'GET', '/v1/health');
    expect(health.status).toBe(503);
    expect(health.body).toEqual({ now: expect.any(Number), status: 'degraded', kv_store: 'down', kv_url: redis.url });
    for (const [method, path, body] of [
      ['POST', '/v1/long-term-memory/search', { text: 'outage' }],
      ['POST', '/v1/long-term-memory/', { memories: [{ id: 'o2', text: 'Written during the outage' }] }],
      ['GET', '/v1/working-memory/s1', undefined],
      ['PUT', '/v1/working-memory/s1', { messages: [{ role: 'user', content: 'hello' }] }],
      ['POST', '/v1/memory/prompt', { query: 'hello', session: { session_id: 's1' } }],
    ] as const) {
      const res = await call(app, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(503);
      expect(res.body).toMatchObject({ code: 'store_unavailable', message: expect.stringContaining(`The key-value store at ${redis.url} is unavailable`) });
    }

    await redis.start(); // comes back empty (no persistence)
    await expect.poll(async () => (await call(app, 'GET', '/v1/health')).status, { timeout: 10_000 }).toBe(200);
    expect((await call(app, 'PUT', '/v1/working-memory/s1', { messages: [{ role: 'user', content: 'hello again' }] })).status).toBe(200);
    expect((await call(app, 'POST', '/v1/long-term-memory/', { memories: [{ id: 'o3', text: 'Written after the outage' }] })).status).toBe(200);
    expect((await search(app, { text: 'outage' })).memories.map((m) => m.id)).toEqual(['o3']);
  });

  it('answers 503 model_runtime_unavailable while the model runtime is down, keeps working memory, and promotes later', async () => {
    const port = await freePort();
    const { app } = scope.track(openMemory({ keyPrefix: scope.prefix, ollamaHost: `http://127.0.0.1:${port}` }));
    const create = await call(app, 'POST', '/v1/long-term-memory/', { memories: [{ id: 'm1', text: 'Needs an embedding' }] });
    expect(create.status).toBe(503);
    expect(create.body).toMatchObject({ code: 'model_runtime_unavailable', message: expect.stringContaining('framework-cli model serve') });
    expect((await call(app, 'POST', '/v1/long-term-memory/search', { text: 'anything' })).status).toBe(503);
    // Without a text, a search is a listing and needs no model.
    expect((await call(app, 'POST', '/v1/long-term-memory/search', {})).status).toBe(200);

    const body = { messages: [{ role: 'user', content: 'remember my seat' }], memories: [{ id: 'wm1', text: 'The user wants an aisle seat' }] };
    const put = await call(app, 'PUT', '/v1/working-memory/s-model', body);
    expect(put.status).toBe(200);
    expect(put.body.memories[0].persisted_at).toBeNull();

    const back = await startEmbeddings(port);
    try {
      const again = await call(app, 'PUT', '/v1/working-memory/s-model', put.body);
      expect(again.body.memories[0].persisted_at).toEqual(expect.any(String));
      expect((await search(app, { text: 'Which seat does the user like?' })).memories.map((m) => m.id)).toEqual(['wm1']);
    } finally {
      await back.close();
    }
  });
});
