import type { AgentConfig } from '../../core/config.js';
import { ConfigError } from '../../core/errors/config-error.js';
import { createKvClient, redactUrl } from '../../core/kv-client.js';
import { KvNonceStore } from './kv-nonce-store.js';
import { InProcessNonceStore } from './in-process-nonce-store.js';
import type { NonceStore } from './nonce-store.js';

export type NonceStoreConfig = Pick<AgentConfig, 'sessionBackend' | 'kvKeyPrefix'> & { sessionKvUrl?: string | undefined };

/**
 * The nonce store for the session backend the configuration asks for:
 * `memory` (this process only) or `kv` (Redis at `sessionKvUrl`, shared by
 * replicas, with its own client that `close()` closes). Throws `ConfigError`
 * when `kv` is chosen without a URL.
 *
 * @example
 * const nonces = createNonceStore({ sessionBackend: 'kv', sessionKvUrl: 'redis://127.0.0.1:6379', kvKeyPrefix: 'fw:' });
 * await verifyRequest({ ...request, self: 'orchestrator', keys, nonces });
 * await nonces.close();
 */
export function createNonceStore(config: NonceStoreConfig): NonceStore {
  if (config.sessionBackend === 'memory') return new InProcessNonceStore();
  if (config.sessionKvUrl === undefined || config.sessionKvUrl === '') {
    throw new ConfigError({
      issues: [{ variable: 'SESSION_KV_URL', message: 'is required when SESSION_BACKEND=kv (or set KV_URL)' }],
    });
  }
  return new KvNonceStore({
    client: createKvClient({ url: config.sessionKvUrl }),
    keyPrefix: config.kvKeyPrefix,
    location: redactUrl(config.sessionKvUrl),
    ownsClient: true,
  });
}
