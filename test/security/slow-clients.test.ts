import { connect, type Socket } from 'node:net';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionLimits, listen, type Listening } from '../../runtime/core/server/listen.js';

// Attacks: a request body trickled in byte by byte was never timed out (still
// open after 140 s), headers were cut only after ~75 s, and one client could
// open connections without end. Every server listens through `listen`, which
// now sets header, body and idle timeouts and a per-client connection cap.

let server: Listening;

beforeAll(async () => {
  const app = new Hono();
  app.post('/echo', async (c) => c.text(await c.req.text()));
  // A response that streams for longer than the body timeout must not be cut.
  app.get('/stream', (c) =>
    streamSSE(c, async (stream) => {
      for (let i = 0; i < 6; i++) {
        await stream.writeSSE({ data: String(i) });
        await stream.sleep(250);
      }
    }),
  );
  server = await listen(app, {
    host: '127.0.0.1',
    port: 0,
    limits: { headersTimeoutMs: 500, bodyTimeoutMs: 1_000, idleTimeoutMs: 3_000, maxConnectionsPerClient: 3 },
  });
});

afterAll(async () => {
  await server?.close();
});

function open(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: server.port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Resolves with what the server sent once it closes the connection, or 'still open' after `ms`. */
function closed(socket: Socket, ms: number): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('error', () => undefined);
    const timer = setTimeout(() => resolve('still open'), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
  });
}

/** Writes `text` one byte every `everyMs` until the socket closes. */
function trickle(socket: Socket, text: string, everyMs: number): void {
  let at = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || at >= text.length) return clearInterval(timer);
    socket.write(text[at++]!);
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}

describe('slow clients', () => {
  it('closes a connection whose body trickles in (408), long before it would finish', async () => {
    const socket = await open();
    socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n');
    trickle(socket, 'x'.repeat(100), 200); // would take 20 s
    const answer = await closed(socket, 15_000);
    expect(answer).not.toBe('still open');
    expect(answer).toMatch(/^HTTP\/1\.1 408|^$/);
  });

  it('closes a connection whose headers trickle in', async () => {
    const socket = await open();
    trickle(socket, 'GET /stream HTTP/1.1\r\nHost: x\r\nX-Padding: ' + 'y'.repeat(60) + '\r\n\r\n', 200); // would take 18 s
    expect(await closed(socket, 15_000)).not.toBe('still open');
  });

  it('lets a response stream for longer than the request timeouts', async () => {
    const response = await fetch(`${server.url}/stream`);
    const text = await response.text();
    expect(text.match(/^data: \d$/gm)).toHaveLength(6);
  });

  it('closes a connection that carries nothing for the idle time, and never one that keeps sending', async () => {
    const app = new Hono();
    app.get('/hang', () => new Promise<Response>(() => undefined)); // an answer that never comes
    app.get('/drip', (c) =>
      streamSSE(c, async (stream) => {
        for (let i = 0; i < 10; i++) {
          await stream.writeSSE({ data: String(i) });
          await stream.sleep(200);
        }
      }),
    );
    const idle = await listen(app, { host: '127.0.0.1', port: 0, limits: { idleTimeoutMs: 800 } });
    try {
      // Two seconds of bytes every 200 ms: more than twice the idle time, not cut.
      const dripped = await (await fetch(`${idle.url}/drip`)).text();
      expect(dripped.match(/^data: \d$/gm)).toHaveLength(10);

      const socket = await new Promise<Socket>((resolve, reject) => {
        const made = connect({ host: '127.0.0.1', port: idle.port }, () => resolve(made));
        made.once('error', reject);
      });
      socket.write('GET /hang HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(await closed(socket, 400)).toBe('still open');
      expect(await closed(socket, 15_000)).toBe('');
    } finally {
      await idle.close();
    }
  });

  it('closes connections past the per-client cap at once, and accepts again when one closes', async () => {
    const held = await Promise.all([open(), open(), open()]);
    const extra = await open();
    expect(await closed(extra, 5_000)).toBe('');
    held[0]!.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const again = await fetch(`${server.url}/echo`, { method: 'POST', body: 'ok', headers: { connection: 'close' } });
    expect(await again.text()).toBe('ok');
    for (const socket of held) socket.destroy();
  });

  it('reads the limits from the environment, and refuses a bad value naming the variable', () => {
    expect(connectionLimits({ env: { HTTP_BODY_TIMEOUT_MS: '2500' } }).bodyTimeoutMs).toBe(2_500);
    expect(connectionLimits({ env: {} })).toEqual({ headersTimeoutMs: 10_000, bodyTimeoutMs: 30_000, idleTimeoutMs: 300_000, maxConnectionsPerClient: 1024 });
    expect(() => connectionLimits({ env: { HTTP_MAX_CONNECTIONS_PER_CLIENT: 'lots' } })).toThrow(/HTTP_MAX_CONNECTIONS_PER_CLIENT/);
  });
});
