import weaviate, { type WeaviateClient } from 'weaviate-client';
import { ConfigError } from '../core/errors/config-error.js';

/** Weaviate's default gRPC port; the v3 client sends queries and batches over gRPC. */
export const DEFAULT_WEAVIATE_GRPC_PORT = 50051;

/** Where a Weaviate server listens, in the shape of the client's `connectToCustom` options. */
export interface WeaviateEndpoint {
  httpHost: string;
  httpPort: number;
  httpSecure: boolean;
  /** A path prefix when Weaviate sits behind a proxy (`http://proxy/weaviate`); empty otherwise. */
  httpPath: string;
  grpcHost: string;
  grpcPort: number;
  grpcSecure: boolean;
  /** The REST base URL, without a trailing slash: `http://127.0.0.1:8081`. */
  baseUrl: string;
}

/**
 * Parses `VECTOR_STORE_URL` into the client's connection parameters: http or
 * https, host, port (80/443 when the URL has none), an optional path prefix,
 * and the gRPC port (`grpcPort`, else 50051) on the same host, secure when the
 * URL is https. Throws `ConfigError` naming `VECTOR_STORE_URL` on anything else.
 *
 * @example
 * parseWeaviateUrl({ url: 'http://127.0.0.1:8081' });
 * // { httpHost: '127.0.0.1', httpPort: 8081, httpSecure: false, httpPath: '', grpcHost: '127.0.0.1', grpcPort: 50051, ... }
 */
export function parseWeaviateUrl(options: { url: string; grpcPort?: number }): WeaviateEndpoint {
  const fail = (message: string): never => {
    throw new ConfigError({ issues: [{ variable: 'VECTOR_STORE_URL', message }], context: 'Invalid Weaviate address' });
  };
  let parsed: URL;
  try {
    parsed = new URL(options.url.trim());
  } catch {
    return fail(`"${options.url}" is not a URL; expected e.g. http://127.0.0.1:8081`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    fail(`"${options.url}" must start with http:// or https://`);
  }
  if (parsed.username || parsed.password) fail('credentials do not belong in the URL; pass an API key instead');
  if (parsed.search || parsed.hash) fail(`"${options.url}" must not have a query or a fragment`);
  const grpcPort = options.grpcPort ?? DEFAULT_WEAVIATE_GRPC_PORT;
  if (!Number.isInteger(grpcPort) || grpcPort < 1 || grpcPort > 65_535) fail(`gRPC port ${grpcPort} is not a TCP port`);
  const secure = parsed.protocol === 'https:';
  const httpPort = parsed.port ? Number(parsed.port) : secure ? 443 : 80;
  // URL keeps IPv6 hosts in brackets; the client wants the bare address.
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const httpPath = parsed.pathname.replace(/\/+$/, '');
  return {
    httpHost: host,
    httpPort,
    httpSecure: secure,
    httpPath,
    grpcHost: host,
    grpcPort,
    grpcSecure: secure,
    baseUrl: `${parsed.protocol}//${parsed.host}${httpPath}`,
  };
}

/** What a readiness probe found: ready or not, and why, for messages. */
export interface WeaviateProbe {
  ready: boolean;
  detail: string;
}

/**
 * Asks `GET {baseUrl}/v1/.well-known/ready` (Weaviate's readiness endpoint,
 * no authentication) and reports whether it answered 2xx within `timeoutMs`.
 * Never throws.
 *
 * @example
 * const { ready, detail } = await probeWeaviate({ baseUrl: 'http://127.0.0.1:8081', timeoutMs: 2000 });
 */
export async function probeWeaviate(options: { baseUrl: string; timeoutMs: number }): Promise<WeaviateProbe> {
  const url = `${options.baseUrl}/v1/.well-known/ready`;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(options.timeoutMs) });
    // Drain the (empty) body so the socket is released.
    await response.arrayBuffer().catch(() => undefined);
    return response.ok ? { ready: true, detail: `${url} answered ${response.status}` } : { ready: false, detail: `${url} answered ${response.status}` };
  } catch (error) {
    return { ready: false, detail: `${url} did not answer: ${describeFetchError(error, options.timeoutMs)}` };
  }
}

/** Writes wait at least this long: a batch of documents takes longer than a query. */
const MIN_INSERT_TIMEOUT_MS = 60_000;

/**
 * Opens the official client on `endpoint` (REST and gRPC; the client checks
 * `/v1/meta` and gRPC health), with `timeoutMs` for the checks and for each
 * query, and at least 60 s for writes. Rejects when that does not succeed
 * within `2 × timeoutMs`; a client that connects after that is closed.
 *
 * @example
 * const client = await openWeaviateClient({ endpoint: parseWeaviateUrl({ url }), timeoutMs: 5000 });
 */
export async function openWeaviateClient(options: { endpoint: WeaviateEndpoint; apiKey?: string | undefined; timeoutMs: number }): Promise<WeaviateClient> {
  const { baseUrl: _baseUrl, ...connection } = options.endpoint;
  const seconds = options.timeoutMs / 1000;
  const connecting = weaviate.connectToCustom({
    ...connection,
    authCredentials: options.apiKey ? new weaviate.ApiKey(options.apiKey) : undefined,
    timeout: { init: seconds, query: seconds, insert: Math.max(options.timeoutMs, MIN_INSERT_TIMEOUT_MS) / 1000 },
  });
  const ms = options.timeoutMs * 2;
  return new Promise<WeaviateClient>((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      reject(new Error(`connecting took longer than ${ms} ms`));
    }, ms);
    timer.unref();
    connecting.then(
      (client) => {
        clearTimeout(timer);
        if (timedOut) void client.close().catch(() => undefined);
        else resolve(client);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** An error's message with its cause's, for log fields and our messages. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error && error.cause.message !== error.message ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`;
}

function describeFetchError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `no answer within ${timeoutMs} ms`;
  if (error instanceof Error) {
    const cause = error.cause;
    if (cause instanceof Error) return 'code' in cause && typeof cause.code === 'string' ? `${cause.code} (${cause.message})` : cause.message;
    return error.message;
  }
  return String(error);
}
