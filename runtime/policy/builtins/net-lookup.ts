/**
 * net.lookup_ip_addr(name): the set of IP addresses of a host name, from the
 * system resolver (node:dns `lookup`, i.e. getaddrinfo: /etc/hosts, then
 * DNS), run on the I/O worker while the evaluation blocks (see sync-io.ts).
 * An IP literal is returned as is. Answers are kept for the rest of the query.
 */
import { isIP } from 'node:net';
import { PolicyError } from '../errors.js';
import { RegoSet, type Value } from '../value.js';
import { asString, type BuiltinDefinition, BuiltinError } from './registry.js';
import { lookupSync } from './sync-io.js';

export const netLookupBuiltins: BuiltinDefinition[] = [
  {
    name: 'net.lookup_ip_addr',
    args: ['string'],
    result: 'set',
    nondeterministic: true,
    impl: ([n], ctx): Value => {
      const name = asString(n, 1);
      if (isIP(name) !== 0) return RegoSet.of([name]);
      const key = `net.lookup_ip_addr:${name}`;
      const seen = ctx.cache.get(key) as RegoSet | undefined;
      if (seen !== undefined) return seen;
      ctx.useNetwork?.('net.lookup_ip_addr');
      const left = Math.max(0, ctx.budgetLeftMs?.() ?? Infinity);
      const r = lookupSync(name, Math.min(10_000, left));
      if (r === undefined) {
        // The budget, not the resolver, ended the wait: the evaluation is cancelled, not the lookup failed.
        if (left < 10_000)
          throw new PolicyError({
            code: 'eval_cancel_error',
            detail: 'caller cancelled query execution: the evaluation budget was spent waiting for net.lookup_ip_addr',
          });
        throw new BuiltinError(`lookup ${name}: timed out`);
      }
      if (!r.ok) {
        if (r.code === 'ENOTFOUND' || r.code === 'ENODATA') throw new BuiltinError(`lookup ${name}: no such host`);
        throw new BuiltinError(`lookup ${name}: ${r.message}`);
      }
      const out = RegoSet.of(r.addresses);
      ctx.cache.set(key, out);
      return out;
    },
  },
];
