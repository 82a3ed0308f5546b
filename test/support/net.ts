import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Polls `check` until it returns true or `timeoutMs` passes (then throws with
 * `what`). An error thrown by `check` stops the wait at once.
 */
export async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

/** True when a GET of `url` answers 2xx; false when nothing answers. */
export async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

/**
 * Real HTTP servers on 127.0.0.1 for one test file (peers that answer as a
 * test needs, well or badly): `serve` starts one and resolves to its origin,
 * `closeAll` (for `afterAll`) drops their connections and closes them.
 */
export function httpPeers(): { serve(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<string>; closeAll(): Promise<void> } {
  const servers: Server[] = [];
  return {
    async serve(handler) {
      const server = createHttpServer(handler);
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    async closeAll() {
      for (const server of servers.splice(0)) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  };
}

/**
 * A handler for {@link httpPeers} that answers `status` (200) and then sends a
 * megabyte of spaces at a time for as long as the client reads (an answer with
 * no end); `onClose` is called when the connection goes.
 */
export function endlessAnswer(options: { status?: number; onClose?: () => void } = {}): (request: IncomingMessage, response: ServerResponse) => void {
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  return (_request, response) => {
    response.writeHead(options.status ?? 200, { 'content-type': 'application/json' });
    const more = (): void => {
      if (response.destroyed) return;
      if (response.write(chunk)) setImmediate(more);
      else response.once('drain', more);
    };
    response.on('error', () => undefined);
    if (options.onClose) response.on('close', options.onClose);
    more();
  };
}
