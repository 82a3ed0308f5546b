import { StoreUnavailableError } from '../../core/errors/store-unavailable-error.js';
import { checkNonceTtl, type NonceStore } from './nonce-store.js';

export interface InProcessNonceStoreOptions {
  /** Most nonces held at once; default 1 000 000 (roughly 100 MB at worst). */
  maxEntries?: number;
  /** Clock in milliseconds since the epoch; default `Date.now`. */
  now?: () => number;
}

const DEFAULT_MAX_ENTRIES = 1_000_000;
/** A full sweep of the map runs at most this often, so a flood cannot make every claim O(n). */
const FULL_SWEEP_INTERVAL_MS = 1_000;

/**
 * A `NonceStore` in this process's memory: each replica has its own, so use
 * the `kv` store when several replicas serve one agent. Expired nonces are
 * swept lazily on `claim` (no timer). When it holds `maxEntries` unexpired
 * nonces it fails closed with `StoreUnavailableError`: evicting an unexpired
 * nonce would let that request be replayed.
 *
 * @example
 * const nonces = new InProcessNonceStore();
 * await nonces.claim('planner-1', nonce, 600); // true
 * await nonces.claim('planner-1', nonce, 600); // false: a replay
 */
export class InProcessNonceStore implements NonceStore {
  /** `keyId:nonce` → expiry (ms), in insertion order. */
  readonly #entries = new Map<string, number>();
  readonly #maxEntries: number;
  readonly #now: () => number;
  #lastFullSweep = Number.NEGATIVE_INFINITY;

  constructor(options: InProcessNonceStoreOptions = {}) {
    const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    if (!Number.isSafeInteger(maxEntries) || maxEntries <= 0) {
      throw new TypeError(`maxEntries must be a positive whole number (got ${String(maxEntries)}).`);
    }
    this.#maxEntries = maxEntries;
    this.#now = options.now ?? Date.now;
  }

  /** How many nonces are held, expired ones not yet swept included. */
  get size(): number {
    return this.#entries.size;
  }

  async claim(keyId: string, nonce: string, ttlSeconds: number): Promise<boolean> {
    checkNonceTtl(ttlSeconds);
    const now = this.#now();
    // Lengths make the key unambiguous whatever characters the parts hold.
    const key = `${keyId.length}:${keyId}:${nonce}`;
    const expiresAt = this.#entries.get(key);
    if (expiresAt !== undefined) {
      if (now <= expiresAt) return false;
      this.#entries.delete(key);
    }
    this.#sweepOldest(now);
    if (this.#entries.size >= this.#maxEntries && now - this.#lastFullSweep >= FULL_SWEEP_INTERVAL_MS) {
      this.#lastFullSweep = now;
      for (const [entry, expiry] of this.#entries) if (now > expiry) this.#entries.delete(entry);
    }
    if (this.#entries.size >= this.#maxEntries) {
      throw new StoreUnavailableError({
        store: 'memory (A2A nonce store)',
        cause: new Error(
          `too many signed requests in the replay window: all ${this.#maxEntries} nonce slots hold unexpired nonces, ` +
            'and dropping one would allow a replay (raise maxEntries or use the kv backend)',
        ),
      });
    }
    this.#entries.set(key, now + ttlSeconds * 1000);
    return true;
  }

  async close(): Promise<void> {
    this.#entries.clear();
  }

  /** Drops expired entries at the old end; with one TTL this keeps the map swept in O(1) per claim. */
  #sweepOldest(now: number): void {
    for (const [entry, expiry] of this.#entries) {
      if (now <= expiry) return;
      this.#entries.delete(entry);
    }
  }
}
