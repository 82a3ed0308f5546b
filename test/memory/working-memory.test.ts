import { describe, expect, it } from 'vitest';
import { WorkingMemoryResponseSchema } from '../../runtime/memory/working-memory.js';
import { waitFor } from '../support/net.js';
import { redisScope } from '../support/redis-scope.js';
import { call, modelRuntime, openMemory, search } from './support.js';

const scope = redisScope();
const models = modelRuntime();
const open = () => scope.track(openMemory({ keyPrefix: scope.prefix, ollamaHost: models.url() }));

describe('working memory', () => {
  it('round-trips messages, memories, data and context, in the AMS shape', async () => {
    const { app } = open();
    const put = await call(app, 'PUT', '/v1/working-memory/s-round?namespace=crm', {
      messages: [
        { role: 'user', content: 'Book a table for two', created_at: '2025-03-01T10:00:00Z' },
        { role: 'assistant', content: 'For which evening?' },
      ],
      data: { party: 2, vegetarian: true },
      context: 'The user is planning a dinner.',
    });
    expect(put.status).toBe(200);
    expect(WorkingMemoryResponseSchema.parse(put.body)).toMatchObject({ session_id: 's-round', namespace: 'crm', user_id: null, ttl_seconds: null });

    const got = await call(app, 'GET', '/v1/working-memory/s-round?namespace=crm');
    expect(got.status).toBe(200);
    const memory = WorkingMemoryResponseSchema.parse(got.body);
    expect(memory.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Book a table for two'],
      ['assistant', 'For which evening?'],
    ]);
    expect(memory.messages[0]!.created_at).toBe('2025-03-01T10:00:00.000Z');
    expect(memory.messages[1]!.id).toMatch(/\S/);
    expect(memory.data).toEqual({ party: 2, vegetarian: true });
    expect(memory.context).toBe('The user is planning a dinner.');
    expect(memory.context_percentage_total_used).toBeNull();

    // recent_messages_limit keeps the newest by created_at.
    const recent = await call(app, 'GET', '/v1/working-memory/s-round?namespace=crm&recent_messages_limit=1');
    expect(recent.body.messages.map((m: { content: string }) => m.content)).toEqual(['For which evening?']);

    expect((await call(app, 'DELETE', '/v1/working-memory/s-round?namespace=crm')).body).toEqual({ status: 'ok' });
    expect((await call(app, 'GET', '/v1/working-memory/s-round?namespace=crm')).status).toBe(404);
  });

  it('answers 404 with the reason for a session never written, as AMS does', async () => {
    const { app } = open();
    const res = await call(app, 'GET', '/v1/working-memory/never-written');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      code: 'not_found',
      message: expect.stringContaining('Session never-written not found'),
      detail: expect.stringContaining('Session never-written not found'),
    });
  });

  it('keeps one working memory per namespace and user', async () => {
    const { app } = open();
    await call(app, 'PUT', '/v1/working-memory/shared?namespace=a', { messages: [{ role: 'user', content: 'in a' }] });
    await call(app, 'PUT', '/v1/working-memory/shared?namespace=b&user_id=u1', { messages: [{ role: 'user', content: 'in b for u1' }] });
    expect((await call(app, 'GET', '/v1/working-memory/shared?namespace=a')).body.messages[0].content).toBe('in a');
    expect((await call(app, 'GET', '/v1/working-memory/shared?namespace=b&user_id=u1')).body.messages[0].content).toBe('in b for u1');
    // As AMS, a session is found by the part of its scope given; two candidates are a 409 naming them, never a guess.
    const ambiguous = await call(app, 'GET', '/v1/working-memory/shared');
    expect(ambiguous.status).toBe(409);
    expect(ambiguous.body).toMatchObject({ code: 'conflict', message: expect.stringContaining('give namespace and user_id') });
    expect((await call(app, 'GET', '/v1/working-memory/shared?namespace=b')).body.messages[0].content).toBe('in b for u1');
    expect((await call(app, 'GET', '/v1/working-memory/shared?namespace=b&user_id=u2')).status).toBe(404);
    // The scope may come in the body instead of the query; both must agree.
    const body = await call(app, 'PUT', '/v1/working-memory/shared', { namespace: 'c', messages: [] });
    expect(body.body.namespace).toBe('c');
    const clash = await call(app, 'PUT', '/v1/working-memory/shared?namespace=d', { namespace: 'c', messages: [] });
    expect(clash.status).toBe(400);
  });

  it('expires after ttl_seconds', async () => {
    const { app } = open();
    await call(app, 'PUT', '/v1/working-memory/short-lived', { messages: [{ role: 'user', content: 'soon gone' }], ttl_seconds: 1 });
    expect((await call(app, 'GET', '/v1/working-memory/short-lived')).body.ttl_seconds).toBe(1);
    const ttl = await scope.admin().ttl(`${scope.prefix}mem:wm:::short-lived`);
    expect(ttl).toBeGreaterThan(0);
    await waitFor(async () => (await call(app, 'GET', '/v1/working-memory/short-lived')).status === 404, 'the session to expire', 5_000);
  });

  it('promotes structured memories to long-term memory, scoped like the session', async () => {
    const { app } = open();
    const put = await call(app, 'PUT', '/v1/working-memory/s-promote?namespace=travel', {
      messages: [{ role: 'user', content: 'I always sit by the window' }],
      memories: [{ id: 'wm-1', text: 'The user prefers window seats on planes' }],
    });
    expect(put.status).toBe(200);
    expect(put.body.memories[0]).toMatchObject({ id: 'wm-1', session_id: 's-promote', namespace: 'travel', persisted_at: expect.any(String) });
    const found = await search(app, { text: 'Where does the user like to sit on a flight?', namespace: { eq: 'travel' } });
    expect(found.memories.map((m) => m.id)).toEqual(['wm-1']);
    expect(found.memories[0]).toMatchObject({ session_id: 's-promote', memory_type: 'message' });
  });
});
