import { gauge } from '../core/telemetry/service-metrics.js';
import { WAIT_KINDS, type WaitKind } from './pending-waits.js';

/** What a session store tells the gauges when /metrics is read. */
export interface CountedSessionStore {
  readonly backend: 'memory' | 'kv';
  /** Equal for stores that share their state (the same Redis and key prefix): such stores are counted once. */
  readonly sharedState: string;
  /** Sessions not yet expired. */
  liveSessions(): Promise<number>;
  /** Waits for a person's decision not yet decided nor expired, by kind. */
  pendingWaits(): Promise<Record<WaitKind, number>>;
}

/** The open session stores of this process. */
const stores = new Set<CountedSessionStore>();

/** One store per shared state; a store that fails (Redis unreachable) is left out of the scrape, not the scrape failed. */
async function eachStore<T>(read: (store: CountedSessionStore) => Promise<T>): Promise<Array<[CountedSessionStore, T]>> {
  const unique = new Map<string, CountedSessionStore>();
  for (const store of stores) if (!unique.has(store.sharedState)) unique.set(store.sharedState, store);
  const results = await Promise.allSettled([...unique.values()].map(async (store) => [store, await read(store)] as [CountedSessionStore, T]));
  return results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
}

gauge('sessions_active', "Sessions not yet expired in this service's session stores, by backend (for kv: every replica's, read from Redis).", {
  labelNames: ['backend'],
  collect: async (metric) => {
    const totals = new Map<string, number>();
    for (const [store, live] of await eachStore((store) => store.liveSessions())) totals.set(store.backend, (totals.get(store.backend) ?? 0) + live);
    metric.reset();
    for (const [backend, live] of totals) metric.set({ backend }, live);
  },
});

gauge(
  'approvals_pending',
  "Waits for a person not yet decided nor expired, by kind: tool_call (a gated tool call) or plan (a plan to confirm); for kv, every replica's.",
  {
    labelNames: ['kind'],
    collect: async (metric) => {
      const read = await eachStore((store) => store.pendingWaits());
      metric.reset();
      if (read.length === 0) return;
      for (const kind of WAIT_KINDS)
        metric.set(
          { kind },
          read.reduce((sum, [, waits]) => sum + waits[kind], 0),
        );
    },
  },
);

/** Counts `store` in `sessions_active` and `approvals_pending` until the returned function is called (at its `close()`). */
export function countSessionStore(store: CountedSessionStore): () => void {
  stores.add(store);
  return () => stores.delete(store);
}
