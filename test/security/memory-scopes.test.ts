import { describe, expect, it } from 'vitest';
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
