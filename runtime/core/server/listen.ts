import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { FrameworkError } from '../framework-error.js';

export interface Listening {
  readonly server: Server;
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves a Hono app on `host:port` (port 0 picks a free one). Resolves once
 * the socket listens; a taken port rejects with a message saying what to change.
 */
export function listen(app: Hono, options: { host: string; port: number; portHint?: string }): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: options.host, port: options.port }) as Server;
    // Streams are long-lived; the idle request timeout must not cut them.
    server.requestTimeout = 0;
    server.keepAliveTimeout = 5_000;
    const onError = (error: NodeJS.ErrnoException) => {
      server.close();
      if (error.code === 'EADDRINUSE') {
        reject(
          new FrameworkError({
            code: 'invalid_config',
            message: `Port ${options.port} on ${options.host} is already in use. Stop what uses it or choose another port${options.portHint ? ` (${options.portHint})` : ''}.`,
            cause: error,
          }),
        );
      } else reject(error);
    };
    server.once('error', onError);
    server.once('listening', () => {
      server.off('error', onError);
      const port = (server.address() as AddressInfo).port;
      const host = options.host.includes(':') ? `[${options.host}]` : options.host;
      resolve({
        server,
        port,
        url: `http://${host}:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
