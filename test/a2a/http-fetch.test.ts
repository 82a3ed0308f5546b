import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpFetch, isLostMidAnswer, isOversizedAnswer, JSON_CALL_MAX_BYTES } from '../../runtime/a2a/http-fetch.js';
import { signingFetch } from '../../runtime/a2a/signing-fetch.js';
import { AgentNotReadyError } from '../../runtime/core/errors/agent-not-ready-error.js';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import { endlessAnswer, freePort } from '../support/net.js';
import { tracingOnInSpans } from '../support/otel-spans.js';

// httpFetch replaces Node's fetch under signingFetch (the A2A client transports): these tests hold it to what the
// transports and our error mapping read of fetch, against a real server.

let server: Server;
let base: string;
const connections = new Set<Socket>();
let accepted = 0;
let lastBody: Buffer | undefined;
let lastHeaders: IncomingMessage['headers'] = {};

async function readAll(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function handle(request: IncomingMessage, response: ServerResponse): void {
  void readAll(request).then((body) => {
    lastBody = body;
    lastHeaders = request.headers;
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (path === '/echo') {
      response.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-twice': 'a' });
      response.end(JSON.stringify({ method: request.method, length: body.length, text: body.toString('utf8') }));
    } else if (path === '/redirect') {
      response.writeHead(307, { location: '/echo' }).end();
    } else if (path === '/empty') {
      response.writeHead(204).end();
    } else if (path === '/events') {
      // One event now, the next only when asked (a stream that stays open).
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: first\n\n');
    } else if (path === '/lost') {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: first\n\n', () => setTimeout(() => request.socket.destroy(), 20));
    } else if (path === '/json-chunks') {
      // A JSON answer in two pieces with a pause between (read whole before the Response is handed over).
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"parts":["one",', () => setTimeout(() => response.end('"two"]}'), 20));
    } else if (path === '/json-lost') {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"partial":', () => setTimeout(() => request.socket.destroy(), 20));
    } else if (path === '/json-endless') {
      endlessAnswer()(request, response);
    } else if (path === '/refused-endless') {
      endlessAnswer({ status: 401 })(request, response);
    } else if (path === '/json-stall') {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"partial":');
    } else {
      response.writeHead(404).end();
    }
  });
}

beforeAll(async () => {
  server = createServer(handle);
  server.on('connection', (socket: Socket) => {
    accepted++;
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  for (const socket of connections) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

describe('httpFetch', () => {
  it('sends the exact body bytes with their length and the headers given, and answers a standard Response', async () => {
    const body = JSON.stringify({ text: 'héllo ✓ 𝄞' });
    const response = await httpFetch(new URL('/echo?q=1', base), {
      method: 'POST',
      headers: new Headers({ 'content-type': 'application/json', 'x-framework-nonce': 'n-1' }),
      body,
    });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Made');
    expect(response.ok).toBe(true);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ method: 'POST', length: Buffer.byteLength(body), text: body });
    expect(lastBody!.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(lastHeaders['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(lastHeaders['x-framework-nonce']).toBe('n-1');
  });

  it('reuses one keep-alive connection for calls one after another', async () => {
    const before = accepted;
    for (let i = 0; i < 5; i++) {
      const response = await httpFetch(new URL('/echo', base), { method: 'POST', headers: new Headers(), body: `{"i":${i}}` });
      expect(((await response.json()) as { text: string }).text).toBe(`{"i":${i}}`);
    }
    expect(accepted - before).toBeLessThanOrEqual(1);
  });

  it('refuses to follow a redirect, as fetch with redirect "error" does', async () => {
    const failure = await httpFetch(new URL('/redirect', base), { method: 'POST', headers: new Headers(), body: '{}' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect(((failure as TypeError).cause as Error).message).toBe('unexpected redirect');
  });

  it('answers a 204 with no body', async () => {
    const response = await httpFetch(new URL('/empty', base), { method: 'GET', headers: new Headers(), body: null });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it('rejects as fetch does when nothing listens: TypeError "fetch failed" with the socket error as cause', async () => {
    const closed = await freePort();
    const failure = await httpFetch(new URL(`http://127.0.0.1:${closed}/`), { method: 'POST', headers: new Headers(), body: '{}' }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe('fetch failed');
    expect(((failure as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('rejects an unsupported scheme with a clear error instead of sending anything', async () => {
    const failure = await httpFetch(new URL('ftp://127.0.0.1/'), { method: 'GET', headers: new Headers(), body: null }).catch((error: unknown) => error);
    expect(((failure as TypeError).cause as Error).message).toMatch(/not supported/);
  });

  it('streams a body as it arrives, and an abort errors it with the signal reason', async () => {
    const controller = new AbortController();
    const response = await httpFetch(new URL('/events', base), { method: 'POST', headers: new Headers(), body: '{}', signal: controller.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
    controller.abort();
    const failure = await reader.read().catch((error: unknown) => error);
    expect((failure as Error).name).toBe('AbortError');
  });

  it('rejects at once with an already aborted signal', async () => {
    const failure = await httpFetch(new URL('/echo', base), { method: 'POST', headers: new Headers(), body: '{}', signal: AbortSignal.abort() }).catch(
      (error: unknown) => error,
    );
    expect((failure as Error).name).toBe('AbortError');
  });

  it('errors the body with ECONNRESET when the peer goes away mid-answer', async () => {
    const response = await httpFetch(new URL('/lost', base), { method: 'POST', headers: new Headers(), body: '{}' });
    const failure = await response.text().catch((error: unknown) => error);
    expect((failure as NodeJS.ErrnoException).code).toBe('ECONNRESET');
  });
  it('hands over a JSON answer read whole, however it was split on the wire', async () => {
    const response = await httpFetch(new URL('/json-chunks', base), { method: 'POST', headers: new Headers(), body: '{}' });
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ parts: ['one', 'two'] });
  });

  it('rejects the call, marked as lost mid-answer, when the peer goes away in the middle of a JSON answer', async () => {
    const failure = await httpFetch(new URL('/json-lost', base), { method: 'POST', headers: new Headers(), body: '{}' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe('fetch failed');
    expect(((failure as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNRESET');
    expect(isLostMidAnswer(failure)).toBe(true);
    // A refused connection is not an answer that broke off.
    const closed = await freePort();
    expect(
      isLostMidAnswer(await httpFetch(new URL(`http://127.0.0.1:${closed}/`), { method: 'POST', headers: new Headers(), body: '{}' }).catch((e: unknown) => e)),
    ).toBe(false);
  });

  it('rejects a JSON answer past JSON_CALL_MAX_BYTES as it arrives, marked as oversized', async () => {
    const failure = await httpFetch(new URL('/json-endless', base), { method: 'POST', headers: new Headers(), body: '{}' }).catch((error: unknown) => error);
    expect(isOversizedAnswer(failure)).toBe(true);
    expect(((failure as TypeError).cause as Error).message).toBe(`the answer is over ${JSON_CALL_MAX_BYTES} bytes`);
    expect(
      isOversizedAnswer(await httpFetch(new URL('/json-lost', base), { method: 'POST', headers: new Headers(), body: '{}' }).catch((e: unknown) => e)),
    ).toBe(false);
  });

  it('rejects with the signal reason when aborted while a JSON answer is still arriving', async () => {
    const controller = new AbortController();
    const pending = httpFetch(new URL('/json-stall', base), { method: 'POST', headers: new Headers(), body: '{}', signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const failure = await pending.catch((error: unknown) => error);
    expect((failure as Error).name).toBe('AbortError');
  });

  it('rejects an answer the Fetch standard refuses (a control character in the status text) instead of throwing', async () => {
    const raw = createNetServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 200 O\u0001K\r\ncontent-length: 0\r\n\r\n'));
    });
    const port = await freePort();
    await new Promise<void>((resolve) => raw.listen(port, '127.0.0.1', resolve));
    try {
      const failure = await httpFetch(new URL(`http://127.0.0.1:${port}/`), { method: 'POST', headers: new Headers(), body: '{}' }).catch(
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(TypeError);
      expect((failure as TypeError).message).toBe('fetch failed');
    } finally {
      await new Promise((resolve) => raw.close(resolve));
    }
  });
});

describe('signingFetch over httpFetch', () => {
  it('maps a refused connection to AgentNotReadyError (unreached) and a redirect to agent_http_error', async () => {
    const signed = signingFetch({ source: 'planner', target: 'executor', key: undefined });
    const closed = await freePort();
    const refused = await signed(`http://127.0.0.1:${closed}/a2a`, { method: 'POST', body: '{}' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AgentNotReadyError);
    expect((refused as AgentNotReadyError).unreached).toBe(true);
    const redirected = await signed(`${base}/redirect`, { method: 'POST', body: '{}' }).catch((error: unknown) => error);
    expect(FrameworkError.isInstance(redirected) && redirected.code).toBe('agent_http_error');
    // An answer that broke off: the agent was reached (not unreached) and lost mid-call.
    const lost = await signed(`${base}/json-lost`, { method: 'POST', body: '{}' }).catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(AgentNotReadyError);
    expect((lost as AgentNotReadyError).unreached).toBe(false);
    expect((lost as AgentNotReadyError).message).toMatch(/connection to executor lost mid-call/);
  });

  it('drops an answer without end (agent_http_error, not held in memory), and reads a refusal without end only for its message', async () => {
    const signed = signingFetch({ source: 'planner', target: 'executor', key: undefined });
    const endless = await signed(`${base}/json-endless`, { method: 'POST', body: '{}' }).catch((error: unknown) => error);
    expect(FrameworkError.isInstance(endless) && endless.code).toBe('agent_http_error');
    expect((endless as Error).message).toBe(
      `executor at ${base} answered /json-endless with more than ${JSON_CALL_MAX_BYTES} bytes, more than an A2A answer may be; the call was dropped.`,
    );
    // A refusal is read whole by httpFetch like any JSON answer, so one without end is dropped the same way;
    // through Node's fetch (the traced path) at most 64 KiB of it are read for the message.
    const refused = await signed(`${base}/refused-endless`, { method: 'POST', body: '{}' }).catch((error: unknown) => error);
    expect(FrameworkError.isInstance(refused) && refused.code).toBe('agent_http_error');
    const overFetch = signingFetch({ source: 'planner', target: 'executor', key: undefined, base: fetch });
    const refusedOverFetch = await overFetch(new URL(`${base}/refused-endless`), { method: 'POST', body: '{}' }).catch((error: unknown) => error);
    expect(FrameworkError.isInstance(refusedOverFetch) && refusedOverFetch.code).toBe('signature_invalid');
    expect((refusedOverFetch as Error).message).toBe('executor refused the call: HTTP 401');
  });
});

describe('signingFetch within a span while tracing is on (over the instrumented fetch)', () => {
  const traced = tracingOnInSpans();
  const signed = signingFetch({ source: 'planner', target: 'executor', key: undefined });

  it('answers as over httpFetch: a JSON answer whole, an event stream as it arrives, one without end dropped, one cut off lost mid-call', async () => {
    const response = await traced(() => signed(new URL('/echo', base), { method: 'POST', body: '{"a":1}' }));
    expect([response.status, response.statusText, response.headers.get('x-twice')]).toEqual([201, 'Made', 'a']);
    expect(await response.json()).toEqual({ method: 'POST', length: 7, text: '{"a":1}' });
    expect(lastHeaders.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);

    const controller = new AbortController();
    const events = await traced(() => signed(new URL('/events', base), { method: 'POST', body: '{}', signal: controller.signal }));
    const reader = events.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
    controller.abort();

    const endless = await traced(() => signed(new URL('/json-endless', base), { method: 'POST', body: '{}' })).catch((error: unknown) => error);
    expect(FrameworkError.isInstance(endless) && endless.code).toBe('agent_http_error');
    expect((endless as Error).message).toContain(`with more than ${JSON_CALL_MAX_BYTES} bytes`);

    const lost = await traced(() => signed(new URL('/json-lost', base), { method: 'POST', body: '{}' })).catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(AgentNotReadyError);
    expect((lost as AgentNotReadyError).unreached).toBe(false);
    expect((lost as AgentNotReadyError).message).toMatch(/connection to executor lost mid-call/);
  });
});
