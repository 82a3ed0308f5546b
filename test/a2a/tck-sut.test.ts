import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The TCK's system under test (bench/a2a-tck/sut.ts), as `npm run a2a:tck` starts it for the TCK's main branch.
const SUT = fileURLToPath(new URL('../../dist/bench/a2a-tck/sut.js', import.meta.url));

let sut: ChildProcess;
let port: number;
beforeAll(async () => {
  sut = spawn(process.execPath, [SUT, '0'], {
    env: { PATH: process.env.PATH ?? '', A2A_TCK_SUT: 'main', LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  for await (const chunk of sut.stdout!) {
    out += String(chunk);
    const match = /listening http:\/\/[^:]+:(\d+)/.exec(out);
    if (match) {
      port = Number(match[1]);
      break;
    }
  }
});
afterAll(async () => {
  if (sut && sut.exitCode === null) {
    sut.kill('SIGTERM');
    await once(sut, 'exit');
  }
});

/** Writes raw HTTP on one connection and collects what comes back until the server closes it (or 5 s pass). */
function exchange(requests: string[]): Promise<{ text: string; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let closedByServer = false;
    socket.on('data', (data) => (text += String(data)));
    socket.on('error', () => undefined);
    socket.on('end', () => (closedByServer = true));
    socket.on('close', () => resolve({ text, closedByServer }));
    for (const request of requests) socket.write(request);
    setTimeout(() => socket.destroy(), 5_000).unref();
  });
}

describe('the TCK SUT forwarding the main branch REST paths', () => {
  it('a body over the limit is 413 with Connection: close, not a keep-alive the next request finds closed', async () => {
    const body = JSON.stringify({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x'.repeat(1_200_000) }] } });
    const { text, closedByServer } = await exchange([
      `POST /message:send HTTP/1.1\r\nHost: localhost:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    ]);
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(closedByServer).toBe(true);
  });

  it('a forwarded request that succeeds keeps the connection for the next one', async () => {
    const body = JSON.stringify({ message: { messageId: 'm-ok', role: 'ROLE_USER', parts: [{ text: 'hello' }] } });
    const request = `POST /message:send HTTP/1.1\r\nHost: localhost:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const { text } = await exchange([request, `GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost:${port}\r\nConnection: close\r\n\r\n`]);
    expect(text.match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
  });
});
