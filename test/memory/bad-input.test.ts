import { describe, expect, it } from 'vitest';
import { redisScope } from '../support/redis-scope.js';
import { call, openMemory } from './support.js';

const scope = redisScope();
// Every request here is refused before anything is embedded: no model runtime needed.
const open = () => scope.track(openMemory({ keyPrefix: scope.prefix, ollamaHost: 'http://127.0.0.1:9', maxBodyBytes: 4096 }));

/** Expects `{code, message, detail}` with `status`, and the message to contain `words`. */
async function refused(res: Promise<{ status: number; body: any }>, status: number, code: string, words: string): Promise<void> {
  const { status: got, body } = await res;
  expect({ status: got, code: body?.code }).toEqual({ status, code });
  expect(body.message).toContain(words);
  expect(body.detail).toBe(body.message);
}

describe('bad input to the memory service', () => {
  it('refuses bad bodies with 400, 413 and 415', async () => {
    const { app } = open();
    await refused(call(app, 'POST', '/v1/long-term-memory/', { memories: [{ id: 'x' }] }), 400, 'invalid_request', 'memories.0.text: is required');
    await refused(
      call(app, 'POST', '/v1/long-term-memory/', { memories: [{ id: 'x', text: '   ' }] }),
      400,
      'invalid_request',
      'memories.0.text: must not be empty',
    );
    await refused(call(app, 'POST', '/v1/long-term-memory/', { memories: [{ text: 'no id' }] }), 400, 'invalid_request', 'memories.0.id: is required');
    await refused(call(app, 'POST', '/v1/long-term-memory/', { memories: 'all of them' }), 400, 'invalid_request', 'memories:');
    await refused(
      call(app, 'POST', '/v1/long-term-memory/', { memories: [{ id: 'x', text: 't', topics: ['a,b'] }] }),
      400,
      'invalid_request',
      'must not contain a comma',
    );
    await refused(call(app, 'POST', '/v1/long-term-memory/search', { text: 'x', limit: 'ten' }), 400, 'invalid_request', 'limit:');
    await refused(call(app, 'POST', '/v1/long-term-memory/search', { text: 'x', limit: 1000 }), 400, 'invalid_request', 'limit:');
    await refused(call(app, 'PUT', '/v1/working-memory/s1', { messages: [{ role: 'user' }] }), 400, 'invalid_request', 'messages.0.content: is required');
    await refused(call(app, 'PUT', '/v1/working-memory/s1', { ttl_seconds: 0 }), 400, 'invalid_request', 'ttl_seconds:');
    await refused(call(app, 'PUT', '/v1/working-memory/s1', { session_id: 's2' }), 400, 'invalid_request', 'is not the session of the path');
    await refused(call(app, 'POST', '/v1/memory/prompt', { session: { session_id: 's1' } }), 400, 'invalid_request', 'query: is required');
    await refused(call(app, 'POST', '/v1/memory/prompt', { query: 'hi' }), 400, 'invalid_request', 'send a session, a long_term_search, or both');

    const raw = async (body: string, contentType?: string) => {
      const res = await app.request('/v1/long-term-memory/search', {
        method: 'POST',
        body,
        ...(contentType ? { headers: { 'content-type': contentType } } : {}),
      });
      return { status: res.status, body: await res.json() };
    };
    await refused(raw('{"text": ', 'application/json'), 400, 'invalid_json', 'not valid JSON');
    await refused(raw('', 'application/json'), 400, 'invalid_json', 'empty');
    await refused(raw('text=hello', 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type', 'Content-Type: application/json');
    await refused(raw(JSON.stringify({ text: 'x'.repeat(5000) }), 'application/json'), 413, 'payload_too_large', '4096 bytes');
  });

  it('refuses bad search modes, recency, optimisation and context-window parameters', async () => {
    const { app } = open();
    // Keyword, hybrid and recency are served now (test/memory/keyword-hybrid.test.ts); their bad parameters are refused as AMS does.
    await refused(
      call(app, 'POST', '/v1/long-term-memory/search', { text: 'x', search_mode: 'keyword', distance_threshold: 0.5 }),
      400,
      'invalid_request',
      'distance_threshold is only supported for semantic search mode',
    );
    await refused(call(app, 'POST', '/v1/long-term-memory/search', { text: 'x', search_mode: 'fuzzy' }), 400, 'invalid_request', 'search_mode');
    await refused(
      call(app, 'POST', '/v1/long-term-memory/search', { text: 'x', search_mode: 'hybrid', hybrid_alpha: 2 }),
      400,
      'invalid_request',
      'hybrid_alpha',
    );
    await refused(
      call(app, 'POST', '/v1/long-term-memory/search', { text: 'x', recency_half_life_created_days: 0 }),
      400,
      'invalid_request',
      'positive number of days',
    );
    // optimize_query, model_name and context_window_max are served now (test/memory/summarize-extract.test.ts); bad values are refused.
    await refused(call(app, 'POST', '/v1/long-term-memory/search?optimize_query=maybe', { text: 'x' }), 400, 'invalid_request', 'optimize_query');
    await refused(call(app, 'GET', '/v1/working-memory/s1?model_name=gpt-99'), 400, 'invalid_request', 'send context_window_max instead');
    await refused(call(app, 'GET', '/v1/working-memory/s1?context_window_max=-5'), 400, 'invalid_request', 'context_window_max');
    await refused(
      call(app, 'POST', '/v1/memory/prompt', { query: 'q', session: { session_id: 's1', context_window_max: 'big' } }),
      400,
      'invalid_request',
      'context_window_max',
    );
  });

  it('refuses filters it does not understand instead of ignoring them', async () => {
    const { app } = open();
    await refused(call(app, 'POST', '/v1/long-term-memory/search', { text: 'x', namespace: { equals: 'a' } }), 400, 'invalid_request', 'namespace');
    await refused(call(app, 'POST', '/v1/long-term-memory/search', { text: 'x', namespace: {} }), 400, 'invalid_request', 'needs a condition');
    await refused(call(app, 'POST', '/v1/long-term-memory/search', { text: 'x', namespace: 'a' }), 400, 'invalid_request', 'namespace');
    await refused(call(app, 'POST', '/v1/long-term-memory/search', { text: 'x', tenant: { eq: 'a' } }), 400, 'invalid_request', 'tenant');
    await refused(call(app, 'POST', '/v1/long-term-memory/search', { text: 'x', topics: { any: [] } }), 400, 'invalid_request', 'at least one value');
    await refused(call(app, 'POST', '/v1/long-term-memory/search', { text: 'x', memory_type: { eq: 'dream' } }), 400, 'invalid_request', 'memory_type.eq');
    await refused(call(app, 'POST', '/v1/long-term-memory/search', { text: 'x', created_at: { gte: 'yesterday' } }), 400, 'invalid_request', 'ISO 8601');
  });

  it('refuses scope keys it does not know, or given twice, instead of widening the request', async () => {
    const { app } = open();
    await refused(call(app, 'POST', '/v1/memory/prompt', { query: 'q', long_term_search: true, namespace: { eq: 'A' } }), 400, 'invalid_request', 'namespace');
    await refused(call(app, 'POST', '/v1/memory/prompt', { query: 'q', session: { session_id: 's1', userid: 'alice' } }), 400, 'invalid_request', 'userid');
    await refused(call(app, 'GET', '/v1/working-memory/s1?namespace=A&usr=mallory'), 400, 'invalid_request', 'usr');
    await refused(call(app, 'GET', '/v1/working-memory/s1?namespace=A&namespace=B'), 400, 'invalid_request', 'namespace is given 2 times');
    await refused(call(app, 'POST', '/v1/long-term-memory/search?namespace=A', { text: 'x' }), 400, 'invalid_request', 'namespace');
    await refused(call(app, 'DELETE', '/v1/long-term-memory?memory_id=a1'), 400, 'invalid_request', 'memory_id');
    await refused(call(app, 'DELETE', '/v1/long-term-memory'), 400, 'invalid_request', 'memory_ids: is required');
  });

  it('refuses text that cannot be stored as UTF-8 and JSON nested too deep', async () => {
    const { app } = open();
    await refused(call(app, 'POST', '/v1/long-term-memory/', { memories: [{ id: '\ud800', text: 't' }] }), 400, 'invalid_request', 'lone UTF-16 surrogate');
    await refused(call(app, 'PUT', '/v1/working-memory/s1', { namespace: '\udbff' }), 400, 'invalid_request', 'lone UTF-16 surrogate');
    await refused(call(app, 'POST', '/v1/long-term-memory/search', { text: 'x', ['\ud800']: 1 }), 400, 'invalid_request', 'lone UTF-16 surrogate');
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100; i++) deep = [deep];
    await refused(call(app, 'PUT', '/v1/working-memory/s1', { data: { x: deep } }), 400, 'invalid_request', 'more than 64 deep');
  });

  it('answers 404 for unknown routes and sessions, 405 with Allow for wrong methods', async () => {
    const { app } = open();
    await refused(call(app, 'GET', '/v1/working-memory/unknown-session'), 404, 'not_found', 'Session unknown-session not found');
    await refused(call(app, 'GET', '/v1/nothing-here'), 404, 'not_found', 'No route GET /v1/nothing-here');
    const res = await app.request('/v1/long-term-memory/search', { method: 'GET' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(await res.json()).toMatchObject({ code: 'method_not_allowed' });
  });
});
