/**
 * `uri.parse` and `uri.is_valid` as OPA v1.20.2 answers them: Go's
 * `net/url.Parse` (see go-url.ts). `uri.parse` reports only the parts that
 * are not empty, never the userinfo, and `raw_path` whenever there is a path
 * (the path as written, or the decoded path when writing it back gives the
 * same text); a URL Go refuses is Go's error. `uri.is_valid` is false for
 * the empty string (Go accepts it) and for anything that is not a string.
 */
import { RegoObject } from '../value.js';
import { goParseURL } from './go-url.js';
import { asString, BuiltinError, type BuiltinDefinition } from './registry.js';

export const uriBuiltins: BuiltinDefinition[] = [
  {
    name: 'uri.parse',
    args: ['string'],
    result: 'object',
    impl: ([s]) => {
      const parsed = goParseURL(asString(s, 1));
      if ('error' in parsed) throw new BuiltinError(parsed.error);
      const u = parsed.url;
      const fields: Array<[string, string]> = [
        ['scheme', u.scheme],
        ['hostname', u.hostname],
        ['port', u.port],
        ['path', u.path],
        ['raw_path', u.rawPath || u.path],
        ['raw_query', u.rawQuery],
        ['fragment', u.fragment],
      ];
      return RegoObject.fromEntries(fields.filter(([, v]) => v !== ''));
    },
  },
  {
    name: 'uri.is_valid',
    args: ['string'],
    result: 'boolean',
    impl: ([s]) => typeof s === 'string' && s !== '' && !('error' in goParseURL(s)),
  },
];
