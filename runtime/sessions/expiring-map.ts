/**
 * A bounded map whose entries carry an expiry instant. Expired entries read as
 * absent and are dropped on access or by `sweep`; past `maxEntries` the oldest
 * entry (insertion order, refreshed by `set`) is evicted.
 */
export class ExpiringMap<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();
  readonly #maxEntries: number;

  constructor(options: { maxEntries: number }) {
    this.#maxEntries = options.maxEntries;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (now > entry.expiresAt) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V, expiresAt: number): void {
    // Delete first so a refreshed entry moves to the young end of the order.
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
  }

  /** Removes the oldest entry; false when there is none. */
  evictOldest(): boolean {
    const oldest = this.#entries.keys().next();
    if (oldest.done === true) return false;
    this.#entries.delete(oldest.value);
    return true;
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  /** The entries not expired at `now`, with their expiry; expired ones are skipped, not dropped. */
  *live(now: number): Generator<[key: string, value: V, expiresAt: number]> {
    for (const [key, entry] of this.#entries) if (now <= entry.expiresAt) yield [key, entry.value, entry.expiresAt];
  }

  /** Drops every expired entry; returns how many went. */
  sweep(now: number): number {
    let removed = 0;
    for (const [key, entry] of this.#entries) {
      if (now > entry.expiresAt) {
        this.#entries.delete(key);
        removed += 1;
      }
    }
    return removed;
  }
}
