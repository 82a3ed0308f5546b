/** walk: every [path, value] pair of a value, pre-order. */
import type { Value } from '../value.js';
import { enumerate } from '../eval/paths.js';
import type { BuiltinDefinition } from './registry.js';

/** Every [path, value] pair of `root`, pre-order, on an explicit stack (a value may be nested 10,000 deep). */
function walk(root: Value, out: Value[]): void {
  const pending: Array<[Value[], Value]> = [[[], root]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [path, v] = next;
    out.push([path, v]);
    const children: Array<[Value[], Value]> = [];
    enumerate(v, (k, x) => {
      children.push([[...path, k], x]);
      return false;
    });
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i] as [Value[], Value]);
  }
}

export const walkBuiltins: BuiltinDefinition[] = [
  {
    name: 'walk',
    args: ['any'],
    result: 'array',
    relation: true,
    impl: ([v]) => {
      const out: Value[] = [];
      walk(v as Value, out);
      return out;
    },
  },
];
