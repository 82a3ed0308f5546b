import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { AgentHttpError } from '../../runtime/http/errors/agent-http-error.js';
import { AgentNotReadyError } from '../../runtime/core/errors/agent-not-ready-error.js';
import { SessionInvalidError } from '../../runtime/sessions/errors/session-invalid-error.js';
import { StreamInterruptedError } from '../../runtime/http/errors/stream-interrupted-error.js';
import { FrontDoorClient } from '../../runtime/http/front-door-client.js';
import { parseFrontDoorEvent } from '../../runtime/http/front-door-event.js';
import { freePort, waitFor } from '../support/net.js';
import { createFixtureAgent, type Probe } from './agent-fixture.js';
import { runAgent } from '../../runtime/agent/run-agent.js';

let full: RunningAgent;
let minimal: RunningAgent;
let probe: Probe;

beforeAll(async () => {
  const fixture = createFixtureAgent();
  probe = fixture.probe;
  full = await runAgent(fixture.core, fixture.agent, { port: 0, a2a: false, env: { AGENT_NAME: 'fixture', LOG_LEVEL: 'error' } });
  const other = createFixtureAgent();
  minimal = await runAgent(other.core, other.agent, { port: 0, mode: 'minimal', env: { AGENT_NAME: 'fixture', LOG_LEVEL: 'error' } });
});

afterAll(async () => {
  await full?.close();
  await minimal?.close();
});

async function collect(iterable: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** A raw HTTP server scripted per test: what it writes, and whether it cuts the connection. */
async function rawServer(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('FrontDoorClient against the real front door', () => {
  it('streams every kind of response, input_required keeping its action type', async () => {
    const client = new FrontDoorClient({ url: `${full.url}/` });
    const { token, contextId } = await client.startSession();
    expect(token).toMatch(/.{16,}/);
    expect(contextId).toBeTruthy();
    expect(await collect(client.stream({ query: 'multi', token }))).toEqual([
      { type: 'status', text: 'Planning...' },
      { type: 'input_required', text: 'Plan:\n1. first\n2. second\r\nApprove?', actionType: 'plan_confirmation' },
      { type: 'text', text: 'plain text' },
      { type: 'result', data: { actions: ['a', 'b'], outcomes: [1, 2] } },
    ]);
    const errors = await collect(client.stream({ query: 'fail', token }));
    expect(errors.at(-1)).toMatchObject({ type: 'error', code: 'internal_error' });
  });

  it('reports an unknown token as SessionInvalidError', async () => {
    const client = new FrontDoorClient({ url: full.url });
    await expect(collect(client.stream({ query: 'hello', token: 'not-a-token' }))).rejects.toBeInstanceOf(SessionInvalidError);
  });

  it('aborting closes the stream and cancels the task on the agent', async () => {
    const client = new FrontDoorClient({ url: full.url });
    const controller = new AbortController();
    const seen: unknown[] = [];
    for await (const event of client.stream({ query: 'slow client-abort', signal: controller.signal })) {
      seen.push(event);
      controller.abort();
    }
    expect(seen).toEqual([{ type: 'status', text: 'started' }]);
    await waitFor(async () => probe.aborted.includes('slow client-abort'), 'the task to see the abort', 5_000);
  });

  it('understands the minimal front door and reports its missing sessions as HTTP 404', async () => {
    const client = new FrontDoorClient({ url: minimal.url });
    const events = await collect(client.stream({ query: 'multi' }));
    expect(events[0]).toEqual({ type: 'text', text: 'Planning...' });
    const failure = await client.startSession().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AgentHttpError);
    expect((failure as AgentHttpError).status).toBe(404);
  });
});

describe('FrontDoorClient failures', () => {
  it('names a refused connection', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const failure = await new FrontDoorClient({ url }).startSession().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AgentNotReadyError);
    expect((failure as Error).message).toMatch(/connection refused/);
  });

  it('turns a 5xx JSON body into AgentHttpError with the agent code', async () => {
    const server = await rawServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'store_unavailable', message: 'Redis is down' }));
    });
    try {
      const failure = await collect(new FrontDoorClient({ url: server.url }).stream({ query: 'x' })).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(AgentHttpError);
      expect(failure).toMatchObject({ status: 503, code: 'store_unavailable' });
      expect((failure as Error).message).toMatch(/HTTP 503: Redis is down/);
    } finally {
      await server.close();
    }
  });

  it('reports a stream cut mid-way, after the events that did arrive', async () => {
    const server = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: status\ndata: {"text":"working"}\n\n', () => setTimeout(() => res.socket?.destroy(), 50));
    });
    try {
      const seen: unknown[] = [];
      const failure = await (async () => {
        for await (const event of new FrontDoorClient({ url: server.url }).stream({ query: 'x' })) seen.push(event);
      })().catch((error: unknown) => error);
      expect(seen).toEqual([{ type: 'status', text: 'working' }]);
      expect(failure).toBeInstanceOf(StreamInterruptedError);
    } finally {
      await server.close();
    }
  });

  it('gives up on an agent that sends no headers, but never cuts a stream that outlives the connect timeout', async () => {
    const silent = await rawServer(() => undefined);
    const slow = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: status\ndata: {"text":"working"}\n\n');
      setTimeout(() => res.end('event: result\ndata: {"done":true}\n\n'), 600);
    });
    try {
      const failure = await new FrontDoorClient({ url: silent.url, connectTimeoutMs: 200 }).startSession().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(AgentNotReadyError);
      expect((failure as Error).message).toMatch(/no answer within 200 ms/);
      const events = await collect(new FrontDoorClient({ url: slow.url, connectTimeoutMs: 200 }).stream({ query: 'x' }));
      expect(events).toEqual([
        { type: 'status', text: 'working' },
        { type: 'result', data: { done: true } },
      ]);
    } finally {
      await silent.close();
      await slow.close();
    }
  });

  it('counts a stream silent past the idle timeout as cut, but keep-alive comments keep it open', async () => {
    const stuck = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: status\ndata: {"text":"working"}\n\n');
    });
    const chatty = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const beat = setInterval(() => res.write(': keep-alive\n\n'), 100);
      setTimeout(() => {
        clearInterval(beat);
        res.end('event: result\ndata: {"done":true}\n\n');
      }, 700);
    });
    try {
      const seen: unknown[] = [];
      const failure = await (async () => {
        for await (const event of new FrontDoorClient({ url: stuck.url, idleTimeoutMs: 300 }).stream({ query: 'x' })) seen.push(event);
      })().catch((error: unknown) => error);
      expect(seen).toEqual([{ type: 'status', text: 'working' }]);
      expect(failure).toBeInstanceOf(StreamInterruptedError);
      expect((failure as Error).message).toMatch(/closed before the agent finished \(no data for 300 ms\)/);
      const events = await collect(new FrontDoorClient({ url: chatty.url, idleTimeoutMs: 300 }).stream({ query: 'x' }));
      expect(events).toEqual([{ type: 'result', data: { done: true } }]);
    } finally {
      await stuck.close();
      await chatty.close();
    }
  });

  it('refuses an event larger than the cap instead of buffering without end', async () => {
    const server = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: text\ndata: ${'x'.repeat(5000)}`);
    });
    try {
      const failure = await collect(new FrontDoorClient({ url: server.url, maxEventChars: 1000 }).stream({ query: 'x' })).catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: 'event_too_large' });
    } finally {
      await server.close();
    }
  });
});

describe('parseFrontDoorEvent', () => {
  it('reads both event formats, and malformed payloads become error responses', () => {
    expect(parseFrontDoorEvent({ event: 'status', data: 'plain' })).toEqual({ type: 'status', text: 'plain' });
    expect(parseFrontDoorEvent({ event: 'input_required', data: 'Approve?' })).toEqual({ type: 'input_required', text: 'Approve?' });
    expect(parseFrontDoorEvent({ event: 'input_required', data: '{"text":"Plan","action_type":"plan_confirmation","data":{"plan_id":"p"}}' })).toEqual({
      type: 'input_required',
      text: 'Plan',
      actionType: 'plan_confirmation',
      data: { plan_id: 'p' },
    });
    expect(parseFrontDoorEvent({ event: 'result', data: '[1,2]' })).toMatchObject({ type: 'error', code: 'invalid_event' });
    expect(parseFrontDoorEvent({ event: 'error', data: 'boom' })).toEqual({ type: 'error', code: 'agent_error', message: 'boom' });
    expect(parseFrontDoorEvent({ event: 'message', data: '{"message":"chunk"}' })).toEqual({ type: 'text', text: 'chunk' });
    expect(parseFrontDoorEvent({ event: 'future_kind', data: 'x' })).toBeUndefined();
  });
});
