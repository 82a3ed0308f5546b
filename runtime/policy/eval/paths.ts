/** Lookup, enumeration and path updates on values (as refs navigate them). */
import { foldDeep, SHALLOW } from '../deep-fold.js';
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
  // Copy the objects down the path (a loop: a path may be as long as its text), then set each into the one above.
  const copies: RegoObject[] = new Array(path.length);
  let cur = root;
  for (let i = 0; i < path.length; i++) {
    const obj = cur instanceof RegoObject ? cur.copy() : new RegoObject();
    copies[i] = obj;
    cur = obj.get(path[i] as Value);
  }
  let v = value;
  for (let i = path.length - 1; i >= 0; i--) {
    const obj = copies[i] as RegoObject;
    obj.set(path[i] as Value, v);
    v = obj;
  }
  return v;
}

/**
 * Merges two objects recursively; where both have a key whose values are not
 * both objects, `a` wins (OPA's merge of base and virtual documents).
 */
export function mergeObjects(a: RegoObject, b: RegoObject): RegoObject {
  return mergeAt(a, b, 0);
}

function mergeAt(a: RegoObject, b: RegoObject, depth: number): RegoObject {
  if (depth >= SHALLOW) return mergeDeep(a, b);
  const out = b.copy();
  for (const k of a.keys()) {
    const av = a.get(k) as Value;
    const bv = b.get(k);
    if (bv instanceof RegoObject && av instanceof RegoObject) out.set(k, mergeAt(av, bv, depth + 1));
    else out.set(k, av);
  }
  return out;
}

/** {@link mergeObjects} folded on an explicit stack over the pairs of objects to merge. */
function mergeDeep(a0: RegoObject, b0: RegoObject): RegoObject {
  type Pair = readonly [RegoObject, RegoObject];
  const both = ([a, b]: Pair, k: Value): Pair | undefined => {
    const av = a.get(k);
    const bv = b.get(k);
    return av instanceof RegoObject && bv instanceof RegoObject ? [av, bv] : undefined;
  };
  return foldDeep<Pair, RegoObject>([a0, b0], {
    open: (pair) => {
      const parts: Pair[] = [];
      for (const k of pair[0].keys()) {
        const p = both(pair, k);
        if (p !== undefined) parts.push(p);
      }
      return parts;
    },
    leaf: () => new RegoObject(), // never called: every pair is opened
    close: (pair, _parts, merged) => {
      const out = pair[1].copy();
      let j = 0;
      for (const k of pair[0].keys()) out.set(k, both(pair, k) === undefined ? (pair[0].get(k) as Value) : (merged[j++] as RegoObject));
      return out;
    },
  });
}
