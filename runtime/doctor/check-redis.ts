import { Redis } from 'ioredis';
import { redactUrl } from '../core/kv-client.js';
import { checkResult, DEFAULT_PROBE_TIMEOUT_MS, type DoctorCheck, type ProbeOptions } from './doctor-check.js';
import { DEFAULT_URLS } from '../core/defaults.js';

/** Where Redis is expected when no variable names it. */
export const DEFAULT_KV_URL = DEFAULT_URLS.kv;

/**
 * PINGs Redis at `SESSION_KV_URL`, else `KV_URL`, else {@link DEFAULT_KV_URL}.
 * Required when the environment asks for it (a URL is set or
 * `SESSION_BACKEND=kv`); with the in-memory default a dead Redis is a `warn`.
 *
 * @example
 * await checkRedis({ env: { KV_URL: 'redis://127.0.0.1:6379' } }); // status 'ok', detail 'PONG from redis://127.0.0.1:6379 (Redis 7.2.4)'
 */
export async function checkRedis(options: { env: NodeJS.ProcessEnv } & ProbeOptions): Promise<DoctorCheck> {
  const { env } = options;
  const configured = env.SESSION_KV_URL || env.KV_URL;
  const url = configured || DEFAULT_KV_URL;
  const required = Boolean(configured) || env.SESSION_BACKEND?.trim().toLowerCase() === 'kv';
  const where = redactUrl(url);
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  let client: Redis;
  try {
    client = new Redis(url, {
      lazyConnect: true,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
      // Its timer would keep the process alive this long after disconnect().
      disconnectTimeout: 50,
    });
  } catch (error) {
    return checkResult('redis', 'missing', `${where}: ${(error as Error).message}`, { fix: 'set KV_URL to a redis:// URL', required });
  }
  let socketError: string | undefined;
  // The promises below reject with "Connection is closed."; the event says why.
  client.on('error', (error: Error) => (socketError ??= error.message));
  try {
    await client.connect();
    const pong = await client.ping();
    const version = /redis_version:(\S+)/.exec(await client.info('server'))?.[1];
    return checkResult('redis', 'ok', `${pong} from ${where}${version ? ` (Redis ${version})` : ''}`, { required });
  } catch (error) {
    const why = socketError ?? ((error as Error).message || 'no answer');
    const fix = `start redis-server (it listens on ${DEFAULT_KV_URL}), or point ${env.SESSION_KV_URL ? 'SESSION_KV_URL' : 'KV_URL'} at a running Redis`;
    if (required) return checkResult('redis', 'missing', `nothing answers PING at ${where}: ${why}`, { fix, required });
    return checkResult('redis', 'warn', `nothing answers PING at ${where}: ${why}; only SESSION_BACKEND=kv needs it`, { fix, required });
  } finally {
    client.disconnect();
  }
}
