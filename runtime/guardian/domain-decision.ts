import { z } from 'zod';
import { isPlainObject } from '../core/json.js';

/** The Guardian's answer about a domain action (rule names of the spec: allow, deny, require_approval). */
export const DomainDecisionSchema = z.object({
  allow: z.boolean(),
  deny: z.array(z.string()),
  require_approval: z.boolean(),
});
export type DomainDecision = z.infer<typeof DomainDecisionSchema>;

/**
 * Reads a domain decision from a package document. Fails closed: `allow` is
 * true only when the document's `allow` is exactly true and nothing denies;
 * `deny` is a set of reason strings or a boolean rule (true becomes
 * `["denied by policy"]`); `require_approval` is true only when exactly true.
 * A `deny` of any other shape counts as a denial saying so.
 *
 * @example
 * domainDecisionFrom({ document: { allow: false, deny: [], require_approval: true }, path: 'trading' });
 * // { allow: false, deny: [], require_approval: true }
 */
export function domainDecisionFrom(options: { document: Record<string, unknown>; path: string }): DomainDecision {
  const { document, path } = options;
  const deny = denyReasons(document.deny, path);
  return {
    allow: document.allow === true && deny.length === 0,
    deny,
    require_approval: document.require_approval === true,
  };
}

function denyReasons(deny: unknown, path: string): string[] {
  if (deny === undefined || deny === false) return [];
  if (deny === true) return ['denied by policy'];
  if (Array.isArray(deny)) return deny.map((reason) => (typeof reason === 'string' ? reason : JSON.stringify(reason)));
  if (isPlainObject(deny) && Object.keys(deny).length === 0) return [];
  return [`"${path.replaceAll('/', '.')}.deny" has an unexpected value`];
}
