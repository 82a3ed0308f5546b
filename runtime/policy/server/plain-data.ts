/**
 * Plain JSON-like data (the base documents the server keeps as JS objects),
 * copied without recursion: `structuredClone` and `JSON.stringify` recurse
 * and exhaust JS's stack on documents some thousands deep, which OPA's
 * store takes.
 */
import { foldDeep } from '../deep-fold.js';

type Plain = unknown;

/**
 * A deep copy of JSON-like data: arrays and plain objects are copied, anything
 * else (strings, numbers, bigints, booleans, null) is shared.
 *
 * @example
 * const copy = copyPlainData({ a: [1, { b: 2 }] }); // equal, not the same objects
 */
export function copyPlainData<T>(data: T): T {
  return foldDeep<Plain, Plain>(data, {
    open: (v) => (Array.isArray(v) ? v : v !== null && typeof v === 'object' ? Object.values(v) : undefined),
    leaf: (v) => v,
    close: (v, _parts, copies) => {
      if (Array.isArray(v)) return copies;
      const out: Record<string, unknown> = {};
      Object.keys(v as object).forEach((k, i) => (out[k] = copies[i]));
      return out;
    },
  }) as T;
}
