/** Lookup, enumeration and path updates on values (as refs navigate them). */
import { RegoNumText, RegoObject, RegoSet, type Value } from '../value.js';

/** `v[key]`: object member, array element, or the set member itself. */
export function lookup(v: Value | undefined, key: Value): Value | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  if (v instanceof RegoObject) return v.get(key);
  if (Array.isArray(v)) {
    if (key instanceof RegoNumText) key = key.value;
    return typeof key === 'number' && Number.isInteger(key) && key >= 0 && key < v.length ? v[key] : undefined;
  }
  if (v instanceof RegoSet) return v.has(key) ? key : undefined;
  return undefined;
}

/** Calls `cb(key, value)` for every member (sorted for objects and sets); stops when it returns true. */
export function enumerate(v: Value | undefined, cb: (key: Value, value: Value) => boolean): boolean {
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (cb(i, v[i] as Value)) return true;
    return false;
  }
  if (v instanceof RegoObject) {
    for (const k of v.keys()) if (cb(k, v.get(k) as Value)) return true;
    return false;
  }
  if (!(v instanceof RegoSet)) return false;
  for (const e of v.values()) if (cb(e, e)) return true;
  return false;
}

/** Keys of a collection (object keys, array indexes, set members). */
export function keysOf(v: Value | undefined): readonly Value[] {
  if (v === null || typeof v !== 'object') return [];
  if (Array.isArray(v)) return v.map((_, i) => i);
  if (v instanceof RegoObject) return v.keys();
  return v instanceof RegoSet ? v.values() : [];
}

export function getPath(v: Value | undefined, path: readonly Value[]): Value | undefined {
  let cur = v;
  for (const k of path) {
    cur = lookup(cur, k);
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** A copy of `root` with `value` at `path`, creating (or replacing non-objects with) objects on the way. */
export function setPath(root: Value | undefined, path: readonly Value[], value: Value): Value {
  if (path.length === 0) return value;
  const obj = root instanceof RegoObject ? root.copy() : new RegoObject();
  const [k, ...rest] = path as [Value, ...Value[]];
  obj.set(k, setPath(obj.get(k), rest, value));
  return obj;
}

/**
 * Merges two objects recursively; where both have a key whose values are not
 * both objects, `a` wins (OPA's merge of base and virtual documents).
 */
export function mergeObjects(a: RegoObject, b: RegoObject): RegoObject {
  const out = b.copy();
  for (const k of a.keys()) {
    const av = a.get(k) as Value;
    const bv = b.get(k);
    if (bv instanceof RegoObject && av instanceof RegoObject) out.set(k, mergeObjects(av, bv));
    else out.set(k, av);
  }
  return out;
}
