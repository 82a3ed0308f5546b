import { createServer, type Server } from 'node:net';
import { freePort } from '../support/net.js';

/** A port nothing listens on (free a moment ago). */
export async function closedPort(): Promise<number> {
  return freePort();
}

/** A raw TCP socket holding a port: accepts connections and never answers HTTP (not one of our services). */
export async function holdPort(options: { silent?: boolean; answerOnceConnected?: number } = {}): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<import('node:net').Socket>();
  const NOT_FOUND = 'HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found';
  const waiting: import('node:net').Socket[] = [];
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (options.answerOnceConnected !== undefined) {
      // A barrier: silent until that many connections are in, then every one is answered.
      waiting.push(socket);
      if (waiting.length >= options.answerOnceConnected) for (const held of waiting.splice(0)) held.end(NOT_FOUND);
      return;
    }
    // Answer like some other program would, unless asked to stay silent.
    if (!options.silent) socket.end(NOT_FOUND);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
