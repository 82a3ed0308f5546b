/**
 * Remembers the nonces of verified signed requests for the replay window, so
 * a captured request cannot be sent again. Two backends: `memory` (this
 * process only) and `kv` (Redis, shared by replicas, which a deployment with
 * several replicas needs: otherwise a replay to another replica succeeds).
 *
 * Both fail closed: when the store cannot record a nonce, `claim` rejects
 * (`StoreUnavailableError`, code `store_unavailable`) rather than answer true.
 */
export interface NonceStore {
  /** True when (keyId, nonce) was not seen within `ttlSeconds`; records it for `ttlSeconds`. */
  claim(keyId: string, nonce: string, ttlSeconds: number): Promise<boolean>;
  /** Releases connections the store owns. */
  close(): Promise<void>;
}

/** Throws `TypeError` unless `ttlSeconds` is a positive finite number; returns it. */
export function checkNonceTtl(ttlSeconds: number): number {
  if (!Number.isFinite(ttlSeconds) || ttlSeconds <= 0) {
    throw new TypeError(`A nonce TTL must be a positive number of seconds (got ${String(ttlSeconds)}).`);
  }
  return ttlSeconds;
}
