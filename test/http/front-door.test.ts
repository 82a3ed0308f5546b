import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/index.js';
import { waitFor } from '../support/net.js';
import { collectSse } from '../support/sse-client.js';
import { createFixtureAgent, type Probe } from './agent-fixture.js';
import { runAgent } from '../../runtime/agent/run-agent.js';

const ENV = { AGENT_NAME: 'fixture', LOG_LEVEL: 'error', MAX_BODY_BYTES: '2048', SESSION_TTL: '1' };

let running: RunningAgent;
let probe: Probe;

beforeAll(async () => {
  const fixture = createFixtureAgent();
  probe = fixture.probe;
  running = await runAgent(fixture.core, fixture.agent, { port: 0, env: ENV });
});
afterAll(async () => {
  await running.close();
});

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${running.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('POST /stream', () => {
  it('frames each response as event + data lines + blank line, with SSE headers', async () => {
    const response = await post('/stream', { query: 'multi' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('cache-control')).toContain('no-cache');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(await response.text()).toBe(
      'event: status\ndata: Planning...\n\n' +
        'event: input_required\ndata: Plan:\ndata: 1. first\ndata: 2. second\ndata: Approve?\n\n' +
        'event: text\ndata: plain text\n\n' +
        'event: result\ndata: {"actions":["a","b"],"outcomes":[1,2]}\n\n',
    );
  });

  it('is parsed by a real EventSource client', async () => {
    const { events, status } = await collectSse(`${running.url}/stream`, { body: { query: 'multi' } });
    expect(status).toBe(200);
    expect(events).toEqual([
      { event: 'status', data: 'Planning...' },
      { event: 'input_required', data: 'Plan:\n1. first\n2. second\nApprove?' },
      { event: 'text', data: 'plain text' },
      { event: 'result', data: '{"actions":["a","b"],"outcomes":[1,2]}' },
    ]);
  });

  it('delivers error events to a real EventSource client', async () => {
    const { events } = await collectSse(`${running.url}/stream`, { body: { query: 'fail' } });
    expect(events[0]).toEqual({ event: 'status', data: 'about to fail' });
    expect(events[1]?.event).toBe('error');
    expect(JSON.parse(events[1]!.data)).toMatchObject({ code: 'internal_error' });
  });

  it('carries the action type in the json event format', async () => {
    const { events } = await collectSse(`${running.url}/stream`, { body: { query: 'multi', event_format: 'json' } });
    expect(events.map((e) => [e.event, JSON.parse(e.data)])).toEqual([
      ['status', { text: 'Planning...' }],
      ['input_required', { text: 'Plan:\n1. first\n2. second\r\nApprove?', action_type: 'plan_confirmation' }],
      ['text', { text: 'plain text' }],
      ['result', { actions: ['a', 'b'], outcomes: [1, 2] }],
    ]);
  });

  it('turns a task failure into an error event without internals', async () => {
    const text = await (await post('/stream', { query: 'fail' })).text();
    expect(text).toContain('event: status\ndata: about to fail\n\n');
    expect(text).toContain('event: error\ndata: {"code":"internal_error"');
    expect(text).not.toContain('secret internal detail');
    expect(text).not.toContain('at ');
  });

  it('turns a result that is not JSON into an error event', async () => {
    const text = await (await post('/stream', { query: 'bigint' })).text();
    expect(text).toMatch(/^event: error\ndata: \{"code":"internal_error","message":"The task produced a result that is not JSON/);
  });

  it('aborts the running task when the client disconnects', async () => {
    const response = await post('/stream', { query: 'slow disconnect-1' });
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe('event: status\ndata: started\n\n');
    await reader.cancel();
    await waitFor(async () => probe.aborted.includes('slow disconnect-1'), 'the task to see the abort', 5_000);
  });

  it('sends keep-alive comments on an idle stream', async () => {
    const fixture = createFixtureAgent();
    const quick = await runAgent(fixture.core, fixture.agent, { port: 0, env: ENV, keepAliveMs: 40 });
    try {
      const text = await (
        await fetch(`${quick.url}/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"quiet"}' })
      ).text();
      expect(text).toMatch(/^(: keep-alive\n\n)+event: result\ndata: \{"done":true\}\n\n$/);
    } finally {
      await quick.close();
    }
  });
});

describe('POST /query', () => {
  it('returns one JSON document with the context, the events and the result', async () => {
    const response = await post('/query', { query: 'multi' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(typeof body.context_id).toBe('string');
    expect(body.events).toEqual([
      { event: 'status', data: { text: 'Planning...' } },
      { event: 'input_required', data: { text: 'Plan:\n1. first\n2. second\r\nApprove?', action_type: 'plan_confirmation' } },
      { event: 'text', data: { text: 'plain text' } },
      { event: 'result', data: { actions: ['a', 'b'], outcomes: [1, 2] } },
    ]);
    expect(body.result).toEqual({ actions: ['a', 'b'], outcomes: [1, 2] });
    expect(body.error).toBeUndefined();
  });

  it('reports a failed task in error and a null result', async () => {
    const body = (await (await post('/query', { query: 'fail' })).json()) as Record<string, unknown>;
    expect(body.result).toBeNull();
    expect(body.error).toMatchObject({ code: 'internal_error' });
  });
});

describe('sessions over HTTP', () => {
  it('a bearer token keeps one context across requests; no token means a fresh one', async () => {
    const started = await post('/session/start', {});
    expect(started.status).toBe(200);
    const session = (await started.json()) as { session_token: string; context_id: string; expires_at: string };
    expect(session.session_token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(new Date(session.expires_at).getTime()).toBeGreaterThan(Date.now());
    const auth = { Authorization: `Bearer ${session.session_token}` };

    const first = (await (await post('/query', { query: 'turn' }, auth)).json()) as { result: { turns: number; context_id: string } };
    const second = (await (await post('/query', { query: 'turn' }, auth)).json()) as { result: { turns: number; context_id: string } };
    expect(first.result).toEqual({ turns: 1, context_id: session.context_id });
    expect(second.result).toEqual({ turns: 2, context_id: session.context_id });

    const anonymous1 = (await (await post('/query', { query: 'turn' })).json()) as { result: { turns: number; context_id: string } };
    const anonymous2 = (await (await post('/query', { query: 'turn' })).json()) as { result: { turns: number; context_id: string } };
    expect(anonymous1.result.turns).toBe(1);
    expect(anonymous2.result.turns).toBe(1);
    expect(anonymous1.result.context_id).not.toBe(anonymous2.result.context_id);
  });

  it('the stream resolves the token too, and says which context it used', async () => {
    const session = (await (await post('/session/start', {})).json()) as { session_token: string; context_id: string };
    const { events, headers } = await collectSse(`${running.url}/stream`, {
      body: { query: 'echo' },
      headers: { Authorization: `Bearer ${session.session_token}` },
    });
    expect(headers.get('x-context-id')).toBe(session.context_id);
    expect(JSON.parse(events[0]!.data)).toEqual({ echo: 'echo', context_id: session.context_id });
  });

  it('answers 401 with a JSON error for unknown, malformed and expired tokens', async () => {
    for (const header of ['Bearer not-a-real-token', 'Basic abc', 'Bearer']) {
      const response = await post('/stream', { query: 'x' }, { Authorization: header });
      expect(response.status).toBe(401);
      const body = (await response.json()) as { code: string; message: string };
      expect(body.code).toBe('session_invalid');
      expect(body.message).toContain('/session/start');
    }
    const session = (await (await post('/session/start', {})).json()) as { session_token: string };
    await new Promise((r) => setTimeout(r, 1_100)); // SESSION_TTL=1
    const expired = await post('/query', { query: 'x' }, { Authorization: `Bearer ${session.session_token}` });
    expect(expired.status).toBe(401);
  });

  it('starts a session with an empty body too, but not with a non-object body', async () => {
    expect((await fetch(`${running.url}/session/start`, { method: 'POST' })).status).toBe(200);
    expect((await post('/session/start', '[1]')).status).toBe(400);
  });
});

describe('bad input', () => {
  const cases: [string, () => Promise<Response>, number, string][] = [
    ['non-JSON body', () => post('/stream', '{"query":'), 400, 'invalid_json'],
    ['empty body', () => post('/stream', ''), 400, 'invalid_json'],
    [
      'wrong content type',
      () => fetch(`${running.url}/stream`, { method: 'POST', body: 'query=x', headers: { 'Content-Type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    ],
    ['no content type', () => fetch(`${running.url}/query`, { method: 'POST', body: new Uint8Array([123, 125]) }), 415, 'unsupported_media_type'],
    ['missing query', () => post('/stream', {}), 400, 'invalid_request'],
    ['non-string query', () => post('/query', { query: 42 }), 400, 'invalid_request'],
    ['array body', () => post('/query', [{ query: 'x' }]), 400, 'invalid_request'],
    ['bad event format', () => post('/stream', { query: 'x', event_format: 'xml' }), 400, 'invalid_request'],
    ['body over the limit', () => post('/stream', { query: 'x'.repeat(4096) }), 413, 'payload_too_large'],
    // The type is refused before the body is read, on /stream (below Hono) as on /query (the app).
    ...(['/stream', '/query'] as const).map((path): [string, () => Promise<Response>, number, string] => [
      `wrong content type and over the limit, ${path}`,
      () => fetch(`${running.url}${path}`, { method: 'POST', body: 'x'.repeat(4096), headers: { 'Content-Type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    ]),
    [
      'chunked body over the limit',
      () =>
        fetch(`${running.url}/stream`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode(`{"query":"${'y'.repeat(3000)}"}`));
              c.close();
            },
          }),
          duplex: 'half',
        } as RequestInit),
      413,
      'payload_too_large',
    ],
    ['unknown route', () => fetch(`${running.url}/nope`), 404, 'not_found'],
    ['wrong method', () => fetch(`${running.url}/stream`), 405, 'method_not_allowed'],
  ];

  it.each(cases)('%s gets a clear JSON error', async (_name, send, status, code) => {
    const response = await send();
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    const body = (await response.json()) as { code: string; message: string };
    expect(body.code).toBe(code);
    expect(body.message.length).toBeGreaterThan(10);
  });

  it('names the problem with the query field', async () => {
    expect(((await (await post('/stream', {})).json()) as { message: string }).message).toBe('Field "query" is required.');
    expect(((await (await post('/stream', { query: 1 })).json()) as { message: string }).message).toBe('Field "query" must be a string.');
  });

  it('stays up after all of that', async () => {
    const health = await fetch(`${running.url}/health`);
    expect(await health.json()).toEqual({ status: 'ok', name: 'fixture', version: '1.2.3' });
  });
});
