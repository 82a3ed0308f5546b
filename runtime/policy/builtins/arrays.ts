/** Array builtins: array.concat, array.slice, array.reverse, array.flatten. */
import type { Value } from '../value.js';
import { asArray, asInt, type BuiltinDefinition } from './registry.js';

export const arrayBuiltins: BuiltinDefinition[] = [
  {
    name: 'array.concat',
    args: ['array', 'array'],
    result: 'array',
    impl: ([a, b]) => [...asArray(a, 1), ...asArray(b, 2)],
  },
  {
    name: 'array.slice',
    args: ['array', 'number', 'number'],
    result: 'array',
    impl: ([a, s, e]) => {
      const arr = asArray(a, 1);
      let start = asInt(s, 2);
      let stop = asInt(e, 3);
      if (start < 0) start = 0;
      if (stop > arr.length) stop = arr.length;
      if (start >= stop) return [];
      return arr.slice(start, stop);
    },
  },
  {
    name: 'array.reverse',
    args: ['array'],
    result: 'array',
    impl: ([a]) => [...asArray(a, 1)].reverse(),
  },
  {
    name: 'array.flatten',
    args: ['array'],
    result: 'array',
    impl: ([a]) => {
      const out: Value[] = [];
      for (const x of asArray(a, 1)) {
        if (Array.isArray(x)) out.push(...x);
        else out.push(x);
      }
      return out;
    },
  },
];
