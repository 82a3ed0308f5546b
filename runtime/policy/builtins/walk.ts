/** walk: every [path, value] pair of a value, pre-order. */
import type { Value } from '../value.js';
import { enumerate } from '../eval/paths.js';
import type { BuiltinDefinition } from './registry.js';

function walk(v: Value, path: Value[], out: Value[]): void {
  out.push([path, v]);
  enumerate(v, (k, x) => {
    walk(x, [...path, k], out);
    return false;
  });
}

export const walkBuiltins: BuiltinDefinition[] = [
  {
    name: 'walk',
    args: ['any'],
    result: 'array',
    relation: true,
    impl: ([v]) => {
      const out: Value[] = [];
      walk(v as Value, [], out);
      return out;
    },
  },
];
