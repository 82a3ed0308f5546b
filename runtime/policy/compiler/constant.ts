/** Conversion of constant (ground, evaluation-free) terms to values. */
import type { Term } from '../ast.js';
import { RegoObject, RegoSet, type Value } from '../value.js';

/** The value of a term without vars, refs, calls or comprehensions; otherwise undefined. */
export function constantValue(t: Term): Value | undefined {
  switch (t.type) {
    case 'null':
      return null;
    case 'boolean':
    case 'number':
    case 'string':
      return t.value;
    case 'array': {
      const out: Value[] = [];
      for (const x of t.items) {
        const v = constantValue(x);
        if (v === undefined) return undefined;
        out.push(v);
      }
      return out;
    }
    case 'set': {
      const s = new RegoSet();
      for (const x of t.items) {
        const v = constantValue(x);
        if (v === undefined) return undefined;
        s.add(v);
      }
      return s;
    }
    case 'object': {
      const o = new RegoObject();
      for (const [k, x] of t.entries) {
        const kv = constantValue(k);
        const vv = constantValue(x);
        if (kv === undefined || vv === undefined) return undefined;
        o.set(kv, vv);
      }
      return o;
    }
    default:
      return undefined;
  }
}
