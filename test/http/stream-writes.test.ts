import { connect } from 'node:net';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentResponse, FrameworkAgent, FrameworkCore, type RunningAgent } from '../../runtime/index.js';
import { runAgent } from '../../runtime/agent/run-agent.js';
import { waitFor } from '../support/net.js';

/**
 * How `POST /stream` leaves the server: a task whose events are all there
 * within one tick is one answer of known length; a task that waits streams
 * its events as they come; a task that floods events waits for the client.
 */

const FLOOD_EVENTS = 200_000;
const FLOOD_TEXT = 'x'.repeat(1024);

let running: RunningAgent;
let release: () => void = () => undefined;
let releaseSilent: () => void = () => undefined;
const progress = { flooded: 0, floodDone: false };

beforeAll(async () => {
  const core = new FrameworkCore();
  core.task({ name: 'route_to_task' }, async function* ({ query }) {
    switch (query) {
      case 'quick':
        yield AgentResponse.status('one');
        yield AgentResponse.text('two\nlines');
        yield AgentResponse.result({ n: 3 });
        return;
      case 'waits':
        yield AgentResponse.status('before the wait');
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        yield AgentResponse.result({ after: true });
        return;
      case 'silent':
        // Nothing to say before the wait: the stream is still open to the client.
        await new Promise<void>((resolve) => {
          releaseSilent = resolve;
        });
        yield AgentResponse.result({ said: 'late' });
        return;
      case 'flood':
        // Never waits on anything but the consumer: only backpressure can hold it.
        for (let i = 0; i < FLOOD_EVENTS; i++) {
          progress.flooded = i + 1;
          yield AgentResponse.text(FLOOD_TEXT);
        }
        progress.floodDone = true;
        return;
      default:
        yield AgentResponse.error('unknown query');
    }
  });
  const agent = new FrameworkAgent({ agentName: 'writes', description: 'stream write test agent' });
  running = await runAgent(core, agent, { port: 0, env: { AGENT_NAME: 'writes', LOG_LEVEL: 'error' } });
});

afterAll(async () => {
  release();
  releaseSilent();
  await running.close();
});

/** One `POST /stream` with node:http, to see the exact framing headers. */
function post(query: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${running.url}/stream`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify({ query }));
  });
}

describe('POST /stream writes', () => {
  it('answers a task whose events are all there at once with a Content-Length, not chunked', async () => {
    const { status, headers, body } = await post('quick');
    expect(status).toBe(200);
    expect(body).toBe('event: status\ndata: one\n\nevent: text\ndata: two\ndata: lines\n\nevent: result\ndata: {"n":3}\n\n');
    expect(headers['transfer-encoding']).toBeUndefined();
    expect(headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(headers['content-type']).toMatch(/^text\/event-stream/);
    expect(headers['x-context-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('streams the events of a task that waits as they come, chunked', async () => {
    const response = await fetch(`${running.url}/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"waits"}' });
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    expect(response.headers.get('content-length')).toBeNull();
    const reader = response.body!.getReader();
    // The first event arrives while the task still waits.
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('event: status\ndata: before the wait\n\n');
    release();
    let rest = '';
    for (let next = await reader.read(); !next.done; next = await reader.read()) rest += new TextDecoder().decode(next.value);
    expect(rest).toBe('event: result\ndata: {"after":true}\n\n');
  });

  it('sends the head of a task that waits before its first event at once, not with that event', async () => {
    // The headers arrive while the task still waits (fetch resolves on them); its event comes later, chunked.
    const response = await fetch(`${running.url}/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"silent"}' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    releaseSilent();
    expect(await response.text()).toBe('event: result\ndata: {"said":"late"}\n\n');
  });

  it('holds a task that floods events for a client that does not read (backpressure)', async () => {
    const socket = connect(running.port, '127.0.0.1');
    try {
      const body = '{"query":"flood"}';
      socket.write(`POST /stream HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      socket.pause();
      // The task starts, fills the socket's buffers, then waits for the client.
      await waitFor(async () => progress.flooded > 0, 'the flood to start', 5_000);
      let seen = -1;
      await waitFor(
        async () => {
          const settled = seen === progress.flooded;
          seen = progress.flooded;
          if (!settled) await new Promise((r) => setTimeout(r, 200));
          return settled;
        },
        'the flood to stop at the client',
        10_000,
      );
      expect(progress.floodDone).toBe(false);
      // What the kernel's buffers hold for a reader that never reads: megabytes, not the 200 MB the task would make.
      expect(progress.flooded).toBeLessThan(FLOOD_EVENTS / 4);
    } finally {
      socket.destroy();
    }
  });
});
