import { gauge } from '../core/telemetry/service-metrics.js';
import { inSpan, SPAN_KIND, tracingEnabled } from '../core/telemetry/tracing.js';
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
 * The function handed out for a method is made once and kept while the
 * store's method stays the same (a search reads `search` from the proxy
 * each time: binding it anew cost a closure and an options object per call).
 */
export function tracedMemoryStore(store: MemoryStore): MemoryStore {
  const made = new Map<PropertyKey, { method: (...args: unknown[]) => unknown; handed: (...args: unknown[]) => unknown }>();
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      const known = made.get(property);
      if (known?.method === method) return known.handed;
      const handed = typeof property === 'string' && TRACED.has(property) ? traced(target, property, method) : method.bind(target);
      made.set(property, { method, handed });
      return handed;
    },
  });
}

/** `method` of `target` in a CLIENT span `memory.<operation>` while tracing is on; straight to the store otherwise. */
function traced(target: MemoryStore, operation: string, method: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
  const name = `memory.${operation}`;
  return (...args: unknown[]) => {
    if (!tracingEnabled()) return Promise.resolve(method.apply(target, args));
    return inSpan(name, { kind: SPAN_KIND.CLIENT, attributes: { 'db.operation.name': operation } }, () => Promise.resolve(method.apply(target, args)));
  };
}
