import type { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createMemoryService } from '../../runtime/memory/create-memory-service.js';
import { call, modelRuntime, openMemory, remember, search } from '../memory/support.js';
import { redisScope } from '../support/redis-scope.js';

// Attack: memory record ids were global, so writing id "shared-1" in
// namespace "mallory" silently replaced Alice's "shared-1" in "alice". A
// write whose id is held in another namespace (or by another user) is now
// refused with 409 and the record stays as it was.

const scope = redisScope();
const models = modelRuntime();

describe('memory ids across namespaces and users', () => {
  it('refuses to replace a record of another namespace or user (409), and keeps the original', async () => {
    const { app } = scope.track(openMemory({ keyPrefix: scope.prefix, ollamaHost: models.url() }));
    await remember(app, [{ id: 'shared-1', text: 'Alice keeps her card PIN in the blue notebook', namespace: 'alice' }]);

    const other = await call(app, 'POST', '/v1/long-term-memory/', { memories: [{ id: 'shared-1', text: 'overwritten by mallory', namespace: 'mallory' }] });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ code: 'conflict' });
    const otherUser = await call(app, 'POST', '/v1/long-term-memory/', {
      memories: [{ id: 'shared-1', text: 'overwritten by a user', namespace: 'alice', user_id: 'mallory' }],
    });
    expect(otherUser.status).toBe(409);

    const found = await search(app, { text: 'Where is the PIN?', namespace: { eq: 'alice' }, limit: 5 });
    expect(found.memories.map((m) => [m.id, m.text])).toEqual([['shared-1', 'Alice keeps her card PIN in the blue notebook']]);
    expect((await search(app, { text: 'overwritten', namespace: { eq: 'mallory' }, limit: 5 })).memories).toEqual([]);

    // The owner may still update its own record.
    await remember(app, [{ id: 'shared-1', text: 'Alice moved the PIN to the safe', namespace: 'alice' }], false);
    expect((await search(app, { text: 'Where is the PIN?', namespace: { eq: 'alice' }, limit: 5 })).memories[0]?.text).toBe('Alice moved the PIN to the safe');
  });
});

// Attack (issue 17 item 2): delete-by-id crossed scopes. With the token mode
// each token's records are its own: another token's delete, read or edit of
// them finds nothing and leaves them; an explicit namespace / user on a
// delete narrows it the same way. The official client (one token, no scope
// parameters) still deletes its own records (test/memory/ams-python-client.test.ts).
describe('deletes, reads and edits by id stay inside their scope', () => {
  const ALICE = 'alice-token-0123456789abcdef';
  const MALLORY = 'mallory-token-0123456789abcdef';

  const as = (app: Hono, token: string) => async (method: string, path: string, body?: unknown) => {
    const res = await app.request(path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  it("with tokens, one token cannot delete, read, edit or replace another token's record", async () => {
    const opened = scope.track(openMemory({ keyPrefix: scope.prefix, ollamaHost: models.url() }));
    const app = createMemoryService({ memory: opened.memory, authTokens: [ALICE, MALLORY] });
    const alice = as(app, ALICE);
    const mallory = as(app, MALLORY);
    expect((await alice('POST', '/v1/long-term-memory/', { memories: [{ id: 'alice-secret', text: 'Alice hides the spare key under the mat' }] })).status).toBe(
      200,
    );

    expect((await mallory('DELETE', '/v1/long-term-memory?memory_ids=alice-secret')).body.status).toBe('ok, deleted 0 memories');
    expect((await mallory('GET', '/v1/long-term-memory/alice-secret')).status).toBe(404);
    expect((await mallory('PATCH', '/v1/long-term-memory/alice-secret', { text: 'pwned' })).status).toBe(404);
    const replace = await mallory('POST', '/v1/long-term-memory/', { memories: [{ id: 'alice-secret', text: 'pwned' }] });
    expect(replace.status).toBe(409);

    expect((await alice('GET', '/v1/long-term-memory/alice-secret')).body.text).toBe('Alice hides the spare key under the mat');
    expect((await alice('DELETE', '/v1/long-term-memory?memory_ids=alice-secret')).body.status).toBe('ok, deleted 1 memories');
  });

  it('with an explicit namespace or user, a delete leaves the records of other scopes', async () => {
    const { app } = scope.track(openMemory({ keyPrefix: scope.prefix, ollamaHost: models.url() }));
    await remember(app, [{ id: 'bob-note', text: 'Bob prefers window seats', namespace: 'bob', user_id: 'bob' }]);
    expect((await call(app, 'DELETE', '/v1/long-term-memory?memory_ids=bob-note&namespace=mallory')).body.status).toBe('ok, deleted 0 memories');
    expect((await call(app, 'DELETE', '/v1/long-term-memory?memory_ids=bob-note&user_id=mallory')).body.status).toBe('ok, deleted 0 memories');
    expect((await call(app, 'GET', '/v1/long-term-memory/bob-note?namespace=mallory')).status).toBe(404);
    expect((await call(app, 'GET', '/v1/long-term-memory/bob-note')).body.text).toBe('Bob prefers window seats');
    expect((await call(app, 'DELETE', '/v1/long-term-memory?memory_ids=bob-note&namespace=bob&user_id=bob')).body.status).toBe('ok, deleted 1 memories');
  });
});
