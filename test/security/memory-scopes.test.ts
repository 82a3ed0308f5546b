import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { listen } from '../../runtime/core/server/listen.js';
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

// The same over MCP: the tools act with the token that opened the session,
// and another token cannot take over that session by presenting its id.
describe('memory MCP tools in token mode', () => {
  const ALICE = 'alice-mcp-token-0123456789abcdef';
  const MALLORY = 'mallory-mcp-token-0123456789abcdef';

  it("cannot delete another token's record, nor use another token's MCP session", async () => {
    const opened = scope.track(openMemory({ keyPrefix: scope.prefix, ollamaHost: models.url() }));
    const server = await listen(createMemoryService({ memory: opened.memory, authTokens: [ALICE, MALLORY] }), { host: '127.0.0.1', port: 0 });
    const connect = async (token: string) => {
      const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
      const client = new Client({ name: 'scope-test', version: '1.0.0' });
      await client.connect(transport);
      return { client, transport };
    };
    const alice = await connect(ALICE);
    const mallory = await connect(MALLORY);
    try {
      await alice.client.callTool({ name: 'create_long_term_memories', arguments: { memories: [{ id: 'alice-mcp', text: 'Alice parks on level 3' }] } });
      const deleted = await mallory.client.callTool({ name: 'delete_long_term_memories', arguments: { memory_ids: ['alice-mcp'] } });
      expect(deleted.structuredContent).toEqual({ status: 'ok, deleted 0 memories' });
      expect((await mallory.client.callTool({ name: 'get_long_term_memory', arguments: { memory_id: 'alice-mcp' } })).isError).toBe(true);
      // Mallory's token on Alice's session id: refused as an unknown session.
      const hijack = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${MALLORY}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': alice.transport.sessionId!,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 9,
          method: 'tools/call',
          params: { name: 'delete_long_term_memories', arguments: { memory_ids: ['alice-mcp'] } },
        }),
      });
      expect(hijack.status).toBe(404);
      expect((await alice.client.callTool({ name: 'get_long_term_memory', arguments: { memory_id: 'alice-mcp' } })).structuredContent).toMatchObject({
        text: 'Alice parks on level 3',
      });
    } finally {
      await alice.client.close();
      await mallory.client.close();
      await server.close();
    }
  });
});
