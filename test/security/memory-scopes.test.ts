import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { listen } from '../../runtime/core/server/listen.js';
import { createMemoryService } from '../../runtime/memory/create-memory-service.js';
import type { MemoryLanguageModel } from '../../runtime/memory/memory-model.js';
import { SystemMemory } from '../../runtime/memory/system-memory.js';
import { ScriptedLanguageModel } from '../../runtime/testing/scripted-language-model.js';
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

// Issue 33, "memory in token mode": everything a token writes is its own,
// whatever route made it, and another token finds nothing (404) on every
// route and tool. Each attack below worked before the fix.
describe('issue 33: memory in token mode', () => {
  const ALICE = 'alice-owner-token-0123456789abcdef';
  const MALLORY = 'mallory-owner-token-0123456789abcdef';

  /** A request as the holder of `token`: status and JSON answer. */
  const caller = (app: Hono, token: string) => async (method: string, path: string, body?: unknown) => {
    const res = await app.request(path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: (text === '' ? undefined : JSON.parse(text)) as any };
  };

  /** The service with two tokens over a fresh store; `languageModel` extracts in the background. */
  const service = (languageModel?: MemoryLanguageModel) => {
    const opened = scope.track(openMemory({ keyPrefix: `${scope.prefix}${randomUUID()}:`, ollamaHost: models.url() }));
    const memory = languageModel ? new SystemMemory({ store: opened.store, embedder: opened.memory.embedder, languageModel }) : opened.memory;
    const app = createMemoryService({ memory, authTokens: [ALICE, MALLORY] });
    return { app, memory, store: opened.store, alice: caller(app, ALICE), mallory: caller(app, MALLORY) };
  };
  const texts = (answer: { body: any }) => JSON.stringify(answer.body);

  it("another token cannot read, list, overwrite or delete a session's working memory (REST): it finds nothing", async () => {
    const { alice, mallory } = service();
    const secret = { messages: [{ role: 'user', content: 'My locker code is 4711' }] };
    expect((await alice('PUT', '/v1/working-memory/alice-wm', secret)).status).toBe(200);

    const read = await mallory('GET', '/v1/working-memory/alice-wm');
    expect(read.status).toBe(404);
    expect(texts(read)).not.toContain('4711');
    expect((await mallory('GET', '/v1/working-memory/alice-wm?namespace=x')).status).toBe(404);
    const listed = await mallory('GET', '/v1/working-memory/');
    expect(listed.body).toEqual({ sessions: [], total: 0 });
    // A write of the same id is Mallory's own session; a delete removes only hers.
    expect((await mallory('PUT', '/v1/working-memory/alice-wm', { messages: [{ role: 'user', content: 'pwned' }] })).status).toBe(200);
    expect((await mallory('GET', '/v1/working-memory/alice-wm')).body.messages[0].content).toBe('pwned');
    expect((await mallory('DELETE', '/v1/working-memory/alice-wm')).status).toBe(200);

    const mine = await alice('GET', '/v1/working-memory/alice-wm');
    expect(mine.status).toBe(200);
    expect(mine.body.messages.map((m: { content: string }) => m.content)).toEqual(['My locker code is 4711']);
    expect((await alice('GET', '/v1/working-memory/')).body).toEqual({ sessions: ['alice-wm'], total: 1 });
  });

  it("the MCP tools get_working_memory, set_working_memory and memory_prompt never reach another token's session", async () => {
    const { app } = service();
    const server = await listen(app, { host: '127.0.0.1', port: 0 });
    const connect = async (token: string) => {
      const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
      const client = new Client({ name: 'owner-test', version: '1.0.0' });
      await client.connect(transport);
      return client;
    };
    const alice = await connect(ALICE);
    const mallory = await connect(MALLORY);
    const structured = async (client: Client, name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError ?? false).toBe(false);
      return result.structuredContent as any;
    };
    try {
      await structured(alice, 'set_working_memory', { session_id: 'alice-mcp-wm', messages: [{ role: 'user', content: 'My bank PIN is 8080' }] });

      const read = await structured(mallory, 'get_working_memory', { session_id: 'alice-mcp-wm' });
      expect(read.messages).toEqual([]);
      expect(JSON.stringify(read)).not.toContain('8080');
      const prompt = await structured(mallory, 'memory_prompt', {
        query: 'What is my PIN?',
        session_id: { eq: 'alice-mcp-wm' },
        include_long_term_search: false,
      });
      expect(JSON.stringify(prompt)).not.toContain('8080');
      await structured(mallory, 'set_working_memory', { session_id: 'alice-mcp-wm', messages: [{ role: 'user', content: 'pwned' }] });

      const mine = await structured(alice, 'get_working_memory', { session_id: 'alice-mcp-wm' });
      expect(mine.messages.map((m: { content: string }) => m.content)).toEqual(['My bank PIN is 8080']);
      expect(JSON.stringify(await structured(alice, 'memory_prompt', { query: 'What is my PIN?', session_id: { eq: 'alice-mcp-wm' } }))).toContain('8080');
    } finally {
      await alice.close();
      await mallory.close();
      await server.close();
    }
  });

  it("records promoted from working memory are the token's own: another token cannot search, read, edit, delete or forget them", async () => {
    const { alice, mallory } = service();
    const put = await alice('PUT', '/v1/working-memory/promote-wm', { memories: [{ id: 'promoted-1', text: 'Alice keeps the safe code 9876 in her wallet' }] });
    expect(put.status).toBe(200);
    expect(put.body.memories[0].persisted_at).not.toBeNull();

    expect((await mallory('GET', '/v1/long-term-memory/promoted-1')).status).toBe(404);
    expect((await mallory('PATCH', '/v1/long-term-memory/promoted-1', { text: 'pwned' })).status).toBe(404);
    const found = await mallory('POST', '/v1/long-term-memory/search', { text: 'safe code', limit: 10 });
    expect(found.body.memories).toEqual([]);
    const prompt = await mallory('POST', '/v1/memory/prompt', { query: 'Where is the safe code?', long_term_search: { limit: 10 } });
    expect(texts(prompt)).not.toContain('9876');
    const forget = await mallory('POST', '/v1/long-term-memory/forget?dry_run=false', { policy: { budget: 0 } });
    expect(forget.body.deleted_ids).toEqual([]);
    expect((await mallory('DELETE', '/v1/long-term-memory?memory_ids=promoted-1')).body.status).toBe('ok, deleted 0 memories');

    expect((await alice('GET', '/v1/long-term-memory/promoted-1')).body.text).toBe('Alice keeps the safe code 9876 in her wallet');
  });

  it("records made by extraction are the session owner's: another token finds none of them", async () => {
    const model = new ScriptedLanguageModel({
      replies: [JSON.stringify({ memories: [{ type: 'semantic', text: 'The user is allergic to shellfish', topics: ['health'], entities: ['User'] }] })],
    });
    const { alice, mallory, memory } = service({ model, name: 'scripted', contextTokens: 8192 });
    expect((await alice('PUT', '/v1/working-memory/extract-wm', { messages: [{ role: 'user', content: 'I am allergic to shellfish' }] })).status).toBe(200);
    await memory.settled();

    const own = await alice('POST', '/v1/long-term-memory/search', { text: 'allergies', limit: 10 });
    expect(own.body.memories.map((m: { text: string }) => m.text)).toEqual(['The user is allergic to shellfish']);
    const id = own.body.memories[0].id as string;

    expect((await mallory('POST', '/v1/long-term-memory/search', { text: 'allergies', limit: 10 })).body.memories).toEqual([]);
    expect((await mallory('GET', `/v1/long-term-memory/${id}`)).status).toBe(404);
    expect((await mallory('PATCH', `/v1/long-term-memory/${id}`, { text: 'pwned' })).status).toBe(404);
    expect((await mallory('DELETE', `/v1/long-term-memory?memory_ids=${id}`)).body.status).toBe('ok, deleted 0 memories');
    expect((await alice('GET', `/v1/long-term-memory/${id}`)).body.text).toBe('The user is allergic to shellfish');
  });

  it("deduplication never crosses owners: the same text as another token's record is stored as the caller's own", async () => {
    const { alice, mallory } = service();
    const text = 'The user is allergic to peanuts';
    expect((await alice('POST', '/v1/long-term-memory/', { memories: [{ id: 'alice-peanuts', text }] })).body.ids).toEqual(['alice-peanuts']);

    const probe = await mallory('POST', '/v1/long-term-memory/', { memories: [{ id: 'mallory-peanuts', text }], deduplicate: true });
    expect(probe.status).toBe(200);
    expect(probe.body).toEqual({ status: 'ok', ids: ['mallory-peanuts'], deduplicated: [false] });
    // Within one owner deduplication still works.
    const again = await mallory('POST', '/v1/long-term-memory/', { memories: [{ id: 'mallory-peanuts-2', text }], deduplicate: true });
    expect(again.body).toEqual({ status: 'ok', ids: ['mallory-peanuts'], deduplicated: [true] });
    expect((await alice('GET', '/v1/long-term-memory/alice-peanuts')).body.text).toBe(text);
  });

  it("GET /v1/tasks/{id} answers another token 404, and its run of the same task id does not replace the owner's task", async () => {
    const { alice, mallory } = service();
    const view = await alice('POST', '/v1/summary-views', { source: 'long_term', group_by: ['user_id'] });
    expect(view.status).toBe(200);
    expect((await alice('POST', `/v1/summary-views/${view.body.id}/run`, { task_id: 'alice-task' })).body.id).toBe('alice-task');

    const peek = await mallory('GET', '/v1/tasks/alice-task');
    expect(peek.status).toBe(404);
    expect(texts(peek)).not.toContain(view.body.id);
    const other = await mallory('POST', '/v1/summary-views', { source: 'long_term', group_by: ['namespace'] });
    expect((await mallory('POST', `/v1/summary-views/${other.body.id}/run`, { task_id: 'alice-task' })).status).toBe(200);

    const mine = await alice('GET', '/v1/tasks/alice-task');
    expect(mine.status).toBe(200);
    expect(mine.body.view_id).toBe(view.body.id);
    expect(mine.body).not.toHaveProperty('owner');
  });

  it("what was written without a token is no token's (fail closed): kept, but not served to any token", async () => {
    const { memory, alice } = service();
    const open = createMemoryService({ memory });
    expect((await call(open, 'POST', '/v1/long-term-memory/', { memories: [{ id: 'unowned-1', text: 'The vault opens with 1357' }] })).status).toBe(200);
    expect((await call(open, 'PUT', '/v1/working-memory/unowned-wm', { messages: [{ role: 'user', content: 'vault 1357' }] })).status).toBe(200);

    expect((await alice('GET', '/v1/long-term-memory/unowned-1')).status).toBe(404);
    expect((await alice('POST', '/v1/long-term-memory/search', { text: 'vault', limit: 10 })).body.memories).toEqual([]);
    expect((await alice('GET', '/v1/working-memory/unowned-wm')).status).toBe(404);
    expect((await alice('POST', '/v1/long-term-memory/', { memories: [{ id: 'unowned-1', text: 'taken over' }] })).status).toBe(409);
    // Nothing lost: without tokens it is all still there.
    expect((await call(open, 'GET', '/v1/long-term-memory/unowned-1')).body.text).toBe('The vault opens with 1357');
    expect((await call(open, 'GET', '/v1/working-memory/unowned-wm')).status).toBe(200);
  });
});
