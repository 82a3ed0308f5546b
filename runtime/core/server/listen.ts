import type { AddressInfo, Socket } from 'node:net';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Hono } from 'hono';
import { FrameworkError } from '../framework-error.js';
import { traceRequests, TracedServerResponse } from '../telemetry/http-server-spans.js';
import { closeIdleConnections } from './idle-connections.js';

export interface Listening {
  readonly server: Server;
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Pending connections the kernel may queue before the server accepts them. */
const LISTEN_BACKLOG = 4096;

/** How long a client may take, and how many connections it may hold, on every server of the toolkit. */
export interface ConnectionLimits {
  /** Time to send the request headers (HTTP_HEADERS_TIMEOUT_MS, default 10 s). */
  headersTimeoutMs: number;
  /** Time to send the whole request, body included (HTTP_BODY_TIMEOUT_MS, default 30 s). A response, however long it streams, is not limited. */
  bodyTimeoutMs: number;
  /** A connection with no bytes either way for this long is closed (HTTP_IDLE_TIMEOUT_MS, default 5 min; streams send keep-alives well within it). */
  idleTimeoutMs: number;
  /** Open connections allowed from one client address (HTTP_MAX_CONNECTIONS_PER_CLIENT, default 1024); more are closed at once. */
  maxConnectionsPerClient: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 30_000,
  idleTimeoutMs: 300_000,
  maxConnectionsPerClient: 1024,
};

/** The limits: the explicit option, then the environment variable, then the default. */
export function connectionLimits(options: { limits?: Partial<ConnectionLimits>; env?: Readonly<Record<string, string | undefined>> } = {}): ConnectionLimits {
  const env = options.env ?? process.env;
  const read = (key: keyof ConnectionLimits, variable: string): number => {
    const given = options.limits?.[key];
    if (given !== undefined) return given;
    const raw = env[variable];
    if (raw === undefined || raw.trim() === '') return DEFAULT_CONNECTION_LIMITS[key];
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) {
      throw new FrameworkError({ code: 'invalid_config', message: `${variable} must be a positive whole number (got "${raw}").` });
    }
    return value;
  };
  return {
    headersTimeoutMs: read('headersTimeoutMs', 'HTTP_HEADERS_TIMEOUT_MS'),
    bodyTimeoutMs: read('bodyTimeoutMs', 'HTTP_BODY_TIMEOUT_MS'),
    idleTimeoutMs: read('idleTimeoutMs', 'HTTP_IDLE_TIMEOUT_MS'),
    maxConnectionsPerClient: read('maxConnectionsPerClient', 'HTTP_MAX_CONNECTIONS_PER_CLIENT'),
  };
}

/**
 * Answers a request on the Node objects themselves, below the Hono app, for
 * a hot route where building Web `Request`/`Response` objects costs more
 * than the work (the policy server's decisions). Returns false, having
 * touched nothing, for every request it leaves to the app.
 */
export type DirectHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

/** A direct handler trying each of `handlers` in turn (missing ones skipped); undefined when none is given. */
export function eitherDirect(...handlers: Array<DirectHandler | undefined>): DirectHandler | undefined {
  const given = handlers.filter((handler): handler is DirectHandler => handler !== undefined);
  if (given.length <= 1) return given[0];
  return (request, response) => given.some((handler) => handler(request, response));
}

/**
 * Serves a Hono app on `host:port` (port 0 picks a free one). Resolves once
 * the socket listens; a taken port rejects with a message saying what to change.
 * Slow clients are cut off (`ConnectionLimits`): headers and the whole
 * request must arrive in time, idle connections close, and one address may
 * hold only so many connections.
 */
export function listen(
  app: Hono,
  options: {
    host: string;
    port: number;
    portHint?: string;
    limits?: Partial<ConnectionLimits>;
    env?: Readonly<Record<string, string | undefined>>;
    /** Tried first on every request; what it declines goes to `app`. */
    direct?: DirectHandler;
    /** Count every request in `http_server_request_duration_seconds` (default true; the policy engine keeps OPA's own metrics). */
    countRequests?: boolean;
  },
): Promise<Listening> {
  const { direct } = options;
  const limits = connectionLimits(options);
  return new Promise((resolve, reject) => {
    // Node checks the request timers every `connectionsCheckingInterval`: keep it well below the shortest limit.
    const connectionsCheckingInterval = Math.max(100, Math.min(1_000, Math.floor(Math.min(limits.headersTimeoutMs, limits.bodyTimeoutMs) / 4)));
    const toApp = lazyAppListener(app, options.host);
    const server = createServer(
      // TracedServerResponse: the server span's traceparent goes into the head as it is written.
      { connectionsCheckingInterval, ServerResponse: TracedServerResponse },
      // Every request of every service: counted for /metrics, and a span when tracing is on.
      traceRequests(
        direct
          ? (request, response) => {
              if (!direct(request, response)) toApp(request, response);
            }
          : toApp,
        { countRequests: options.countRequests ?? true },
      ),
    );
    server.headersTimeout = limits.headersTimeoutMs;
    // Covers receiving the request only; a response streams for as long as it needs.
    server.requestTimeout = Math.max(limits.bodyTimeoutMs, limits.headersTimeoutMs);
    server.keepAliveTimeout = 5_000;
    const perClient = new Map<string, number>();
    server.on('connection', (socket: Socket) => {
      const address = socket.remoteAddress ?? 'unknown';
      const open = (perClient.get(address) ?? 0) + 1;
      if (open > limits.maxConnectionsPerClient) {
        socket.destroy();
        return;
      }
      perClient.set(address, open);
      socket.once('close', () => {
        const left = (perClient.get(address) ?? 1) - 1;
        if (left <= 0) perClient.delete(address);
        else perClient.set(address, left);
      });
    });
    // After the cap above, which may already have closed the connection.
    closeIdleConnections(server, limits.idleTimeoutMs);
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
    // A deep accept queue: with Node's default (511) a burst of connections overflows it and the
    // kernel drops their handshakes, so those clients wait seconds for retransmits (seen at 1,000
    // concurrent streams). The kernel caps it at net.core.somaxconn.
    server.listen({ port: options.port, host: options.host, backlog: LISTEN_BACKLOG });
  });
}

type NodeListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * `app` on Node's request and response through `@hono/node-server`, which is
 * imported by the first request that reaches the app: it extends the global
 * `Request` and `Response` when it loads, and with them loads Node's fetch
 * implementation (undici), 4-6 MB of a service's idle memory that a
 * service answering below Hono (`direct`) does not need until then (issue 40).
 * Requests that come while it loads wait for it, in order.
 */
function lazyAppListener(app: Hono, hostname: string | undefined): NodeListener {
  let listener: ((request: IncomingMessage, response: ServerResponse) => unknown) | undefined;
  let loading: Promise<(request: IncomingMessage, response: ServerResponse) => unknown> | undefined;
  return (request, response) => {
    if (listener) {
      void listener(request, response);
      return;
    }
    loading ??= import('@hono/node-server').then(
      ({ getRequestListener }) => (listener = getRequestListener(app.fetch, { hostname })),
      (error: unknown) => {
        // A broken install, said once in the process's log; the details are not the client's.
        process.emitWarning(`could not load @hono/node-server: ${String(error)}`);
        throw error;
      },
    );
    loading.then(
      (ready) => void ready(request, response),
      () => {
        // Said on every request the app should have answered, never a hang.
        const body = JSON.stringify({ code: 'internal_error', message: 'The server could not load its HTTP adapter (@hono/node-server); its log says why.' });
        if (!response.headersSent) response.writeHead(500, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });
        response.end(body);
      },
    );
  };
}
