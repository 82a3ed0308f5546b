/**
 * rand.intn(str, n): a random integer in [0, |n|), the same for the same
 * (str, n) within one query (OPA caches it per evaluation).
 */
import { randomInt } from 'node:crypto';
import { asInt, asString, type BuiltinDefinition } from './registry.js';

export const randBuiltins: BuiltinDefinition[] = [
  {
    name: 'rand.intn',
    args: ['string', 'number'],
    result: 'number',
    nondeterministic: true,
    impl: ([s, n], ctx) => {
      const str = asString(s, 1);
      let max = asInt(n, 2);
      if (max === 0) return 0;
      if (max < 0) max = -max;
      const key = `rand.intn\u0000${str}\u0000${max}`;
      const cached = ctx.cache.get(key);
      if (typeof cached === 'number') return cached;
      const r = max <= 2 ** 48 - 1 ? randomInt(max) : Math.floor(Math.random() * max);
      ctx.cache.set(key, r);
      return r;
    },
  },
];
