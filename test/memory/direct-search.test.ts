import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMemoryService, type RunningMemoryService } from '../../runtime/memory/start-memory-service.js';
import { REDIS_URL, redisScope } from '../support/redis-scope.js';
import { modelRuntime } from './support.js';

// POST /v1/long-term-memory/search is answered below Hono (directMemorySearch);
// with a query string it goes through the app's route. The same service answers
// both, so every answer of the direct route is compared with the app's.

const scope = redisScope();
const models = modelRuntime();
const TOKEN = 'direct-search-token-aaaaaaaa';
const DIRECT = '/v1/long-term-memory/search';
const THROUGH_APP = '/v1/long-term-memory/search?optimize_query=false';

let service: RunningMemoryService;
beforeAll(async () => {
  service = await startMemoryService({
    port: 0,
    kvUrl: REDIS_URL,
    keyPrefix: scope.prefix,
    ollamaHost: models.url(),
    maxBodyBytes: 2048,
    env: { MEMORY_AUTH_TOKENS: TOKEN },
  });
  const written = await fetch(`${service.url}/v1/long-term-memory/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      memories: [
        { id: 'ds-tea', text: 'The user drinks green tea every morning', namespace: 'crm' },
        { id: 'ds-bike', text: 'The user cycles to work on a red bike', namespace: 'crm' },
        { id: 'ds-jazz', text: 'The user listens to jazz while cooking', namespace: 'home' },
      ],
    }),
  });
  expect(written.status).toBe(200);
});
afterAll(async () => service?.close());

interface Answer {
  status: number;
  contentType: string | null;
  challenge: string | null;
  body: unknown;
}

async function send(path: string, init: { headers?: Record<string, string>; body?: string }): Promise<Answer> {
  const response = await fetch(`${service.url}${path}`, { method: 'POST', headers: init.headers, body: init.body });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    challenge: response.headers.get('www-authenticate'),
    body: JSON.parse(text) as unknown,
  };
}

const json = { 'content-type': 'application/json' };
const bearer = { ...json, authorization: `Bearer ${TOKEN}` };

describe('the direct search route', () => {
  it('answers a search as the app does', async () => {
    // Without recency, a search touches no record, so both answers are the same records byte for byte.
    for (const body of [
      { text: 'What does the user drink?', recency_boost: false },
      { text: 'hobbies', namespace: { eq: 'home' }, recency_boost: false, limit: 2 },
      { search_mode: 'keyword', text: 'bike', recency_boost: false },
    ]) {
      const request = { headers: bearer, body: JSON.stringify(body) };
      const direct = await send(DIRECT, request);
      expect(direct.status, JSON.stringify(direct.body)).toBe(200);
      expect(direct).toEqual(await send(THROUGH_APP, request));
    }
    const ranked = await send(DIRECT, { headers: bearer, body: JSON.stringify({ text: 'tea in the morning' }) });
    expect((ranked.body as { memories: Array<{ id: string }> }).memories[0]?.id).toBe('ds-tea');
  });

  it('refuses what the app refuses, with the same status, code, message and detail', async () => {
    const cases: Array<[what: string, headers: Record<string, string>, body: string | undefined]> = [
      ['no token', json, '{"text":"tea"}'],
      ['a wrong token', { ...json, authorization: 'Bearer not-the-token' }, '{"text":"tea"}'],
      ['a token in another scheme', { ...json, authorization: `Basic ${TOKEN}` }, '{"text":"tea"}'],
      ['no body', bearer, undefined],
      ['bad JSON', bearer, '{"text":'],
      ['not JSON', { ...bearer, 'content-type': 'text/plain' }, '{"text":"tea"}'],
      ['an unknown field', bearer, '{"text":"tea","namspace":{"eq":"crm"}}'],
      ['a bad limit', bearer, '{"text":"tea","limit":1000}'],
      ['a lone surrogate', bearer, '{"text":"\\ud800"}'],
      ['a body over the limit', bearer, JSON.stringify({ text: 'x'.repeat(4096) })],
      // The type is refused before the body is read, so this is a 415, not a 413.
      ['not JSON and over the limit', { ...bearer, 'content-type': 'text/plain' }, JSON.stringify({ text: 'x'.repeat(4096) })],
      ['an array', bearer, '[1]'],
    ];
    for (const [what, headers, body] of cases) {
      const request = { headers, ...(body === undefined ? {} : { body }) };
      const direct = await send(DIRECT, request);
      expect(direct.status, what).toBeGreaterThanOrEqual(400);
      expect(direct, what).toEqual(await send(THROUGH_APP, request));
      expect((direct.body as { detail?: string }).detail, what).toBe((direct.body as { message: string }).message);
    }
  });

  it('answers GET /v1/health and /health below Hono as the app does, without a token', async () => {
    for (const path of ['/v1/health', '/health']) {
      const [direct, routed] = await Promise.all([fetch(`${service.url}${path}`), fetch(`${service.url}${path}?through=app`)]);
      const [directBody, routedBody] = (await Promise.all([direct.json(), routed.json()])) as Array<Record<string, unknown>>;
      expect(direct.status, path).toBe(200);
      expect([direct.status, direct.headers.get('content-type')]).toEqual([routed.status, routed.headers.get('content-type')]);
      // `now` is the time of each answer; the rest is the same.
      expect({ ...directBody, now: typeof directBody!.now }).toEqual({ ...routedBody, now: typeof routedBody!.now });
      expect(directBody).toMatchObject({ status: 'ok', kv_store: 'up' });
    }
  });
});
