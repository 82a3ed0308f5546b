import type { AgentConfig } from '../core/config.js';
import { ConfigError } from '../core/errors/config-error.js';
import { KvSessionStore } from './kv-session-store.js';
import { InProcessSessionStore } from './in-process-session-store.js';
import type { SessionStore } from './session-store.js';

export type SessionStoreConfig = Pick<AgentConfig, 'sessionBackend' | 'sessionKvUrl' | 'sessionTtlSeconds'> & Partial<Pick<AgentConfig, 'kvKeyPrefix'>>;

/**
 * The session store the configuration asks for: `memory` (this process only)
 * or `kv` (Redis at `sessionKvUrl`, shared by replicas). Throws `ConfigError`
 * when `kv` is chosen without a URL. The caller closes the store.
 *
 * @example
 * const store = createSessionStore({ sessionBackend: 'kv', sessionKvUrl: 'redis://127.0.0.1:6379', sessionTtlSeconds: 3600 });
 * const { token, contextId } = await store.start();
 * await store.resolve(token); // { contextId, createdAt, expiresAt }
 * await store.close();
 */
export function createSessionStore(config: SessionStoreConfig): SessionStore {
  const ttlSeconds = config.sessionTtlSeconds;
  if (config.sessionBackend === 'memory') return new InProcessSessionStore({ ttlSeconds });
  if (config.sessionKvUrl === undefined) {
    throw new ConfigError({
      issues: [{ variable: 'SESSION_KV_URL', message: 'is required when SESSION_BACKEND=kv (or set KV_URL)' }],
    });
  }
  return new KvSessionStore({
    url: config.sessionKvUrl,
    ttlSeconds,
    ...(config.kvKeyPrefix === undefined ? {} : { keyPrefix: config.kvKeyPrefix }),
  });
}
