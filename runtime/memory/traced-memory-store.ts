import { gauge } from '../core/telemetry/service-metrics.js';
import { inSpan, SPAN_KIND } from '../core/telemetry/tracing.js';
import type { MemoryStore } from './memory-store.js';

/** The operations on long-term records that get a span: reads of many, writes, searches and deletions. */
const TRACED = new Set<string>(['putRecords', 'search', 'deleteRecords', 'getRecords', 'touchRecords']);

/** Stores whose records /metrics counts (`memory_records`): those of running memory services. */
const counted = new Set<{ readonly cachedRecords: number }>();
gauge('memory_records', 'Long-term memory records held by the memory service.', {
  collect: (metric) => metric.set([...counted].reduce((sum, store) => sum + store.cachedRecords, 0)),
});

/** Counts `store`'s records in `memory_records` until the returned function is called. */
export function countMemoryRecords(store: { readonly cachedRecords: number }): () => void {
  counted.add(store);
  return () => counted.delete(store);
}

/**
 * The store with a CLIENT span (`memory.<operation>`, `db.operation.name`)
 * around each operation on long-term records; every other method passes
 * through. With tracing off each call goes straight to the store.
 */
export function tracedMemoryStore(store: MemoryStore): MemoryStore {
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (typeof property !== 'string' || !TRACED.has(property)) return method.bind(target);
      return (...args: unknown[]) =>
        inSpan(`memory.${property}`, { kind: SPAN_KIND.CLIENT, attributes: { 'db.operation.name': property } }, () =>
          Promise.resolve(method.apply(target, args)),
        );
    },
  });
}
