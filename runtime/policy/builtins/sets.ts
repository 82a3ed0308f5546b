/** Set builtins: `&` (and), `|` (or), intersection, union. */
import { RegoSet, type Value } from '../value.js';
import { asSet, type BuiltinDefinition, operandElementError } from './registry.js';

function setOfSets(v: Value | undefined): RegoSet[] {
  const s = asSet(v, 1);
  return s.values().map((x) => {
    if (!(x instanceof RegoSet)) throw operandElementError(1, s, x, 'set');
    return x;
  });
}

function intersect(a: RegoSet, b: RegoSet): RegoSet {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  const out = new RegoSet();
  for (const v of small.values()) if (large.has(v)) out.add(v);
  return out;
}

function unite(sets: RegoSet[]): RegoSet {
  const out = new RegoSet();
  for (const s of sets) for (const v of s.values()) out.add(v);
  return out;
}

export const setBuiltins: BuiltinDefinition[] = [
  { name: 'and', args: ['set', 'set'], result: 'set', impl: ([a, b]) => intersect(asSet(a, 1), asSet(b, 2)) },
  { name: 'or', args: ['set', 'set'], result: 'set', impl: ([a, b]) => unite([asSet(a, 1), asSet(b, 2)]) },
  {
    name: 'intersection',
    args: ['set'],
    result: 'set',
    impl: ([v]) => {
      const sets = setOfSets(v);
      if (sets.length === 0) return new RegoSet();
      return sets.reduce((a, b) => intersect(a, b));
    },
  },
  { name: 'union', args: ['set'], result: 'set', impl: ([v]) => unite(setOfSets(v)) },
];
