/** Object builtins: object.get, keys, remove, union, union_n, filter, subset. */
import { equal, RegoObject, RegoSet, type Value } from '../value.js';
import { getPath, mergeObjects } from '../eval/paths.js';
import { asArray, asObject, BuiltinError, type BuiltinDefinition, operandElementError, operandTypeError } from './registry.js';

/** Keys given as an array, set or object (its keys). */
export function keySet(v: Value | undefined, pos: number): RegoSet {
  if (Array.isArray(v)) return RegoSet.of(v);
  if (v instanceof RegoSet) return v;
  if (v instanceof RegoObject) return RegoSet.of(v.keys());
  throw operandTypeError(pos, v ?? null, 'object', 'set', 'array');
}

/** Recursive merge; `b` wins where values are not both objects (the evaluator's merge with the sides swapped). */
export function unionObjects(a: RegoObject, b: RegoObject): RegoObject {
  return mergeObjects(b, a);
}

/** OPA's Object.Filter: keep what the filter tree selects (null leaves keep the whole value). */
export function filterValue(v: Value, filter: Value): Value {
  if (filter === null) return v;
  if (!(filter instanceof RegoObject)) throw new BuiltinError(`invalid filter value, expected an object`);
  if (Array.isArray(v)) {
    const out: Value[] = [];
    v.forEach((x, i) => {
      const sub = filter.get(String(i));
      if (sub !== undefined) out.push(filterValue(x, sub));
    });
    return out;
  }
  if (v instanceof RegoSet) {
    const out = new RegoSet();
    for (const x of v.values()) {
      const sub = filter.get(x);
      if (sub !== undefined) out.add(filterValue(x, sub));
    }
    return out;
  }
  if (v instanceof RegoObject) {
    const out = new RegoObject();
    for (const k of v.keys()) {
      const sub = filter.get(k);
      if (sub !== undefined) out.set(k, filterValue(v.get(k) as Value, sub));
    }
    return out;
  }
  return v;
}

function arraySubset(sup: Value[], sub: Value[]): boolean {
  if (sub.length > sup.length) return false;
  outer: for (let i = 0; i + sub.length <= sup.length; i++) {
    for (let j = 0; j < sub.length; j++) if (!equal(sup[i + j] as Value, sub[j] as Value)) continue outer;
    return true;
  }
  return false;
}

function setSubset(sup: RegoSet, sub: RegoSet): boolean {
  return sub.values().every((x) => sup.has(x));
}

/** OPA's object subset: every key of `sub` in `sup`, its value equal or (objects, sets, arrays) a subset; pairs of objects wait on a stack (values may nest 10,000 deep). */
function objectSubset(sup0: RegoObject, sub0: RegoObject): boolean {
  const pending: Array<[RegoObject, RegoObject]> = [[sup0, sub0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [sup, sub] = next;
    for (const k of sub.keys()) {
      const s = sup.get(k);
      const x = sub.get(k) as Value;
      if (s === undefined) return false;
      if (equal(s, x)) continue;
      if (s instanceof RegoObject && x instanceof RegoObject) pending.push([s, x]);
      else if (s instanceof RegoSet && x instanceof RegoSet) {
        if (!setSubset(s, x)) return false;
      } else if (Array.isArray(s) && Array.isArray(x)) {
        if (!arraySubset(s, x)) return false;
      } else return false;
    }
  }
  return true;
}

export const objectBuiltins: BuiltinDefinition[] = [
  {
    name: 'object.get',
    args: ['object', 'any', 'any'],
    result: 'any',
    impl: ([o, k, d]) => {
      const obj = asObject(o, 1);
      // A null value is a value (OPA answers null, not the default): no `??`.
      const v = Array.isArray(k) ? (k.length === 0 ? obj : getPath(obj, k)) : obj.get(k as Value);
      return v === undefined ? (d as Value) : v;
    },
  },
  {
    name: 'object.keys',
    args: ['object'],
    result: 'set',
    impl: ([o]) => RegoSet.of(asObject(o, 1).keys()),
  },
  {
    name: 'object.remove',
    args: ['object', 'any'],
    result: 'object',
    impl: ([o, ks]) => {
      const obj = asObject(o, 1);
      const keys = keySet(ks, 2);
      const out = new RegoObject();
      for (const k of obj.keys()) if (!keys.has(k)) out.set(k, obj.get(k) as Value);
      return out;
    },
  },
  {
    name: 'object.filter',
    args: ['object', 'any'],
    result: 'object',
    impl: ([o, ks]) => {
      const obj = asObject(o, 1);
      const keys = keySet(ks, 2);
      const out = new RegoObject();
      for (const k of keys.values()) {
        const v = obj.get(k);
        if (v !== undefined) out.set(k, v);
      }
      return out;
    },
  },
  {
    name: 'object.union',
    args: ['object', 'object'],
    result: 'object',
    impl: ([a, b]) => unionObjects(asObject(a, 1), asObject(b, 2)),
  },
  {
    name: 'object.union_n',
    args: ['array'],
    result: 'object',
    impl: ([a]) => {
      const arr = asArray(a, 1);
      let out = new RegoObject();
      for (const x of arr) {
        if (!(x instanceof RegoObject)) throw operandElementError(1, arr, x, 'object');
        out = unionObjects(out, x);
      }
      return out;
    },
  },
  {
    name: 'object.subset',
    args: ['any', 'any'],
    result: 'boolean',
    impl: ([sup, sub]) => {
      if (sup instanceof RegoObject && sub instanceof RegoObject) return objectSubset(sup, sub);
      if (sup instanceof RegoSet && sub instanceof RegoSet) return setSubset(sup, sub);
      if (Array.isArray(sup) && Array.isArray(sub)) return arraySubset(sup, sub);
      if (Array.isArray(sup) && sub instanceof RegoSet) {
        let unmatched = sub.size;
        for (const x of sup) {
          if (sub.has(x)) unmatched--;
          if (unmatched <= 0) return true;
        }
        return false;
      }
      throw BuiltinError.type('both arguments object.subset must be of the same type or array and set');
    },
  },
];
