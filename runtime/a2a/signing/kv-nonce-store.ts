import type { Redis } from 'ioredis';
import { closeKvClient, kvCall } from '../../core/kv-client.js';
import { checkNonceTtl, type NonceStore } from './nonce-store.js';

export interface KvNonceStoreOptions {
  /** An ioredis client, e.g. from `createKvClient`. */
  client: Redis;
  /** Prefix of every key the store writes, e.g. `fw:`; keys are `<prefix>a2a:nonce:<keyId>:<nonce>`. */
  keyPrefix: string;
  /** The Redis address without credentials, for messages (see `redactUrl`/`clientLocation`). */
  location: string;
  /** When true, `close()` closes the client; default false. */
  ownsClient?: boolean;
}

/**
 * A `NonceStore` in Redis, shared by every replica that uses the same Redis
 * and key prefix: `SET key 1 NX EX ttl`, so the first claim wins and Redis
 * expires it. Rejects with `StoreUnavailableError` while Redis is unreachable
 * (fail closed: the request is refused, not let through).
 *
 * @example
 * const client = createKvClient({ url: 'redis://127.0.0.1:6379' });
 * const nonces = new KvNonceStore({ client, keyPrefix: 'fw:', location: redactUrl(url), ownsClient: true });
 * await nonces.claim('planner-1', nonce, 600); // true, then false for a replay
 */
export class KvNonceStore implements NonceStore {
  readonly location: string;
  readonly #client: Redis;
  readonly #prefix: string;
  readonly #ownsClient: boolean;

  constructor(options: KvNonceStoreOptions) {
    this.#client = options.client;
    this.#prefix = options.keyPrefix;
    this.location = options.location;
    this.#ownsClient = options.ownsClient ?? false;
  }

  async claim(keyId: string, nonce: string, ttlSeconds: number): Promise<boolean> {
    checkNonceTtl(ttlSeconds);
    if (keyId.includes(':')) throw new TypeError('A key id in the nonce store must not contain ":".');
    const key = `${this.#prefix}a2a:nonce:${keyId}:${nonce}`;
    const reply = await kvCall(this.location, this.#client, (client) => client.set(key, '1', 'EX', Math.ceil(ttlSeconds), 'NX'));
    return reply === 'OK';
  }

  async close(): Promise<void> {
    if (this.#ownsClient) await closeKvClient(this.#client);
  }
}
