import { createRequire } from 'node:module';
import type { Redis, RedisOptions } from 'ioredis';
import { StoreUnavailableError } from './errors/store-unavailable-error.js';
import { FrameworkError } from './framework-error.js';

const require = createRequire(import.meta.url);

/**
 * ioredis, loaded by the first client made (it is CommonJS, so synchronously):
 * it holds about 20 MB resident, which a process whose stores are all in
 * process (an agent with memory sessions, the policy engine) never needs.
 */
function redisClass(): typeof Redis {
  return (require('ioredis') as typeof import('ioredis')).Redis;
}

/** The address of a Redis URL without credentials, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(invalid URL)';
  }
}

/** The redacted address of a Redis client, for messages (`url` wins when the caller knows it). */
export function clientLocation(client: Redis, url?: string): string {
  if (url !== undefined) return redactUrl(url);
  const { host, port, db } = client.options;
  return `redis://${host ?? '127.0.0.1'}:${port ?? 6379}${db ? `/${db}` : ''}`;
}

export interface KvClientOptions {
  url: string;
  /** Milliseconds a command may take before it fails; default 2000. */
  commandTimeoutMs?: number;
  /** Called once when the connection is lost and once when it comes back. */
  onStateChange?: (state: 'down' | 'up', error?: Error) => void;
  /**
   * Send the commands issued in one turn of the event loop together, in one
   * write, after the turn's I/O callbacks (ioredis's auto-pipelining): on a
   * busy server the write to Redis, which wakes Redis up, is most of a
   * command's CPU. Default false, because a command then leaves only after
   * the caller's synchronous work: a caller that sends one and computes while
   * the reply travels (the memory store) must not use it. No reply is shared
   * or cached: every command still reaches Redis.
   */
  autoPipelining?: boolean;
}

/**
 * A Redis client for the toolkit's stores. It fails fast instead of queueing
 * while Redis is down (so a request gets a 503 rather than a hang) and keeps
 * reconnecting in the background, so the process recovers by itself.
 */
export function createKvClient(options: KvClientOptions): Redis {
  const redisOptions: RedisOptions = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: options.commandTimeoutMs ?? 2000,
    retryStrategy: (attempt) => Math.min(100 * 2 ** Math.min(attempt, 5), 2000),
    lazyConnect: false,
    enableAutoPipelining: options.autoPipelining ?? false,
  };
  const client = new (redisClass())(options.url, redisOptions);
  let down = false;
  client.on('error', (error: Error) => {
    if (!down) {
      down = true;
      options.onStateChange?.('down', error);
    }
  });
  client.on('ready', () => {
    if (down) {
      down = false;
      options.onStateChange?.('up');
    }
  });
  return client;
}

/** How long the first calls on a new client wait for its initial connection. */
const FIRST_CONNECT_WAIT_MS = 2000;
const firstConnects = new WeakMap<Redis, Promise<void>>();

/**
 * Settles when a new client is first ready or has failed to connect (bounded).
 * The toolkit's clients do not queue commands while offline, so without this
 * the first calls after start-up would fail before the connection is up.
 * Later calls find it settled and fail fast during an outage.
 */
export function whenFirstConnected(client: Redis): Promise<void> {
  let pending = firstConnects.get(client);
  if (pending) return pending;
  pending =
    client.status !== 'connecting' && client.status !== 'connect'
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const done = (): void => {
            clearTimeout(timer);
            client.off('ready', done).off('error', done).off('end', done);
            resolve();
          };
          const timer = setTimeout(done, FIRST_CONNECT_WAIT_MS);
          timer.unref();
          client.once('ready', done).once('error', done).once('end', done);
        });
  firstConnects.set(client, pending);
  return pending;
}

/**
 * Runs a Redis call once the client's first connection attempt has settled,
 * turning connection failures into `StoreUnavailableError`. A bug in the
 * caller's own code (a TypeError, RangeError, URIError or SyntaxError, or one
 * of our errors) is rethrown as it is, not blamed on the store. On a ready
 * client the command is sent before this returns (no await first), so a
 * caller can do other work while the reply travels.
 */
export async function kvCall<T>(location: string, client: Redis, call: (client: Redis) => Promise<T>): Promise<T> {
  try {
    if (client.status !== 'ready') await whenFirstConnected(client);
    return await call(client);
  } catch (error) {
    if (isOwnError(error)) throw error;
    throw new StoreUnavailableError({ store: location, cause: error });
  }
}

function isOwnError(error: unknown): boolean {
  return (
    FrameworkError.isInstance(error) || error instanceof TypeError || error instanceof RangeError || error instanceof URIError || error instanceof SyntaxError
  );
}

/** Closes a client without waiting on a server that may be gone. */
export async function closeKvClient(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  try {
    if (client.status === 'ready') await client.quit();
    else client.disconnect();
  } catch {
    client.disconnect();
  }
}
