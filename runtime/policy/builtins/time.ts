/** Time builtins. Only time.now_ns is implemented here; the rest of the family is added separately. */
import type { BuiltinDefinition } from './registry.js';
import { bigNum } from '../value.js';

export const timeBuiltins: BuiltinDefinition[] = [
  {
    name: 'time.now_ns',
    args: [],
    result: 'number',
    nondeterministic: true,
    impl: (_args, ctx) => bigNum(ctx.timeNs),
  },
];
