import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { signRequest } from '../../runtime/a2a/signing/request-signature.js';
import type { A2AServer } from '../../runtime/a2a/a2a-server.js';
import { silentLogger } from '../../runtime/core/logger.js';
import { createBaseApp } from '../../runtime/core/server/base-app.js';
import type { Listening } from '../../runtime/core/server/listen.js';
import { makeKeys, serveProbe } from './support.js';

// The JSON-RPC route answered below Hono (directJsonRpc, over a real socket) and the app's own JSON-RPC route
// (`app.request()`, no socket) must give the same answers: the same request, signed the same way, to both.

const keys = makeKeys(['planner', 'probe']);
let server: A2AServer;
let app: Hono;
let listening: Listening;

beforeAll(async () => {
  const env = { AGENT_NAME: 'probe', A2A_KEYS: keys.json, A2A_VALIDATION_MODE: 'permissive', MAX_BODY_BYTES: '4096', LOG_LEVEL: 'error' };
  ({ server, app, listening } = await serveProbe(env));
});

afterAll(async () => {
  await listening?.close();
  await server?.close();
});

function sendMessage(text: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'SendMessage',
    params: { message: { messageId: `m-${text.length}`, role: 'ROLE_USER', parts: [{ text }] } },
  });
}

/** The same POST to /rpc/ both ways (each signed afresh: a nonce is taken once): status, the headers that matter, body. */
async function both(body: string, options: { sign?: boolean; contentType?: string } = {}) {
  const make = () => {
    const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/json', 'a2a-version': '1.0' };
    if (options.sign !== false)
      Object.assign(headers, signRequest({ method: 'POST', path: '/rpc/', body, source: 'planner', target: 'probe', key: keys.keys.get('planner')! }));
    return { method: 'POST', headers, body };
  };
  const read = async (response: Response) => ({
    status: response.status,
    contentType: response.headers.get('content-type'),
    challenge: response.headers.get('www-authenticate'),
    body: (await response.json()) as Record<string, unknown>,
  });
  const direct = await read(await fetch(`${listening.url}/rpc/`, make()));
  const routed = await read(await app.request('http://127.0.0.1/rpc/', make()));
  return { direct, routed };
}

describe('the JSON-RPC route below Hono', () => {
  it('answers a signed send as the Hono route does', async () => {
    const { direct, routed } = await both(sendMessage('result ok'));
    expect(direct.status).toBe(200);
    const state = (answer: { body: Record<string, unknown> }) => (answer.body.result as { task?: { status?: { state?: string } } }).task?.status?.state;
    expect(state(direct)).toBe('TASK_STATE_COMPLETED');
    expect(state(routed)).toBe(state(direct));
    expect(direct.body.id).toBe(7);
    expect(direct.contentType).toBe(routed.contentType);
  });

  it('gives the same refusals: unsigned (401 with the challenge), bad JSON, a batch, too deep, too large', async () => {
    const cases: Array<[string, Parameters<typeof both>[1]]> = [
      [sendMessage('result x'), { sign: false }],
      ['{"jsonrpc": "2.0", ', {}],
      [`[${sendMessage('result x')}]`, {}],
      [`${'['.repeat(70)}${']'.repeat(70)}`, {}],
      [sendMessage('x'.repeat(5000)), {}],
    ];
    const statuses: number[] = [];
    for (const [body, options] of cases) {
      const { direct, routed } = await both(body, options);
      expect(direct).toEqual(routed);
      statuses.push(direct.status);
    }
    expect(statuses).toEqual([401, 200, 400, 400, 413]);
  });

  it('leaves the request to the app when the app already had a POST route at that path (it would answer first)', async () => {
    const own = createBaseApp({ logger: silentLogger });
    own.post('/rpc/', (c) => c.text('the front door'));
    const shadowed = server.mount(own);
    const post = { method: 'POST', url: '/rpc/', headers: { 'content-type': 'application/json' } } as unknown as IncomingMessage;
    expect(shadowed(post, {} as ServerResponse)).toBe(false);
    expect(await (await own.request('http://127.0.0.1/rpc/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).text()).toBe(
      'the front door',
    );
  });

  it('leaves what it does not serve to the app: another content type is the A2A 415', async () => {
    const { direct, routed } = await both(sendMessage('result x'), { contentType: 'text/plain' });
    expect(direct).toEqual(routed);
    expect(direct.status).toBe(415);
    expect((direct.body.error as { code: number }).code).toBe(-32005);
  });
});
