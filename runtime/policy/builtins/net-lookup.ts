/**
 * net.lookup_ip_addr(name): the set of IP addresses of a host name, from the
 * system resolver (node:dns `lookup`, i.e. getaddrinfo: /etc/hosts, then
 * DNS), run on the I/O worker while the evaluation blocks (see sync-io.ts).
 * An IP literal is returned as is. Answers are kept for the rest of the query.
 */
import { isIP } from 'node:net';
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
      const r = lookupSync(name);
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
