/** Aggregates: count, sum, product, max, min, sort. */
import { compare, isNumber, RegoNumText, RegoObject, RegoSet, type Value } from '../value.js';
import * as n from './numeric.js';
import { type BuiltinDefinition, operandElementError, operandTypeError } from './registry.js';

function collection(v: Value | undefined, name: string): readonly Value[] {
  if (Array.isArray(v)) return v;
  if (v instanceof RegoSet) return v.values();
  throw operandTypeError(1, v ?? null, 'set', 'array');
  void name;
}

function numbers(v: Value | undefined): n.Num[] {
  const items = collection(v, '');
  return items.map((x) => {
    if (!isNumber(x)) throw operandElementError(1, v as Value, x, 'number');
    return x instanceof RegoNumText ? x.value : x;
  });
}

export const aggregateBuiltins: BuiltinDefinition[] = [
  {
    name: 'count',
    args: ['any'],
    result: 'number',
    impl: ([v]) => {
      if (typeof v === 'string') {
        let c = 0;
        for (const _ of v) c++;
        return c;
      }
      if (Array.isArray(v)) return v.length;
      if (v instanceof RegoSet || v instanceof RegoObject) return v.size;
      throw operandTypeError(1, v ?? null, 'array', 'object', 'set', 'string');
    },
  },
  {
    name: 'sum',
    args: ['collection'],
    result: 'number',
    impl: ([v]) => n.sumAll(numbers(v)),
  },
  {
    name: 'product',
    args: ['collection'],
    result: 'number',
    impl: ([v]) => n.productAll(numbers(v)),
  },
  {
    name: 'max',
    args: ['collection'],
    result: 'any',
    impl: ([v]) => {
      const items = collection(v, 'max');
      if (items.length === 0) return undefined;
      return items.reduce((a, b) => (compare(a, b) >= 0 ? a : b));
    },
  },
  {
    name: 'min',
    args: ['collection'],
    result: 'any',
    impl: ([v]) => {
      const items = collection(v, 'min');
      if (items.length === 0) return undefined;
      return items.reduce((a, b) => (compare(a, b) <= 0 ? a : b));
    },
  },
  {
    name: 'sort',
    args: ['collection'],
    result: 'array',
    impl: ([v]) => {
      if (Array.isArray(v)) return [...v].sort(compare);
      if (v instanceof RegoSet) return [...v.values()];
      // OPA's order in this message: {set, array}.
      throw operandTypeError(1, v ?? null, 'set', 'array');
    },
  },
];
