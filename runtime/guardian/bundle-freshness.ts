import { z } from 'zod';
import type { KeyRing } from '../a2a/signing/key-ring.js';
import type { SigningKey } from '../a2a/signing/signing-key.js';
import { bundleSignatureProblem, signBundle } from './policy-bundle.js';

/**
 * What the Guardian says, signed, when it answers `304 Not Modified`: the
 * bundle with this digest (and revision) is still the one to use, as of
 * `issued_at`, until `expires_at`. A 304 says nothing about time by itself
 * (anyone can send one), so an agent extends a bundle's freshness only from
 * such a statement, signed like bundles but for another purpose.
 */
export const BundleFreshnessSchema = z.object({
  revision: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  digest: z.string().min(1).max(128),
  issued_at: z.iso.datetime({ offset: true }),
  expires_at: z.iso.datetime({ offset: true }),
});
export type BundleFreshness = z.infer<typeof BundleFreshnessSchema>;

/** The header that carries the statement (base64url of its JSON); the key and signature headers are the bundle's. */
export const BUNDLE_FRESHNESS_HEADER = 'x-framework-bundle-freshness';

/**
 * The headers of a 304 that carry `statement`, signed with `key`.
 *
 * @example
 * new Response(null, { status: 304, headers: { etag, ...freshnessHeaders({ statement, key }) } });
 */
export function freshnessHeaders(options: { statement: BundleFreshness; key: SigningKey }): Record<string, string> {
  const text = JSON.stringify(options.statement);
  return { [BUNDLE_FRESHNESS_HEADER]: Buffer.from(text).toString('base64url'), ...signBundle({ body: text, key: options.key, purpose: 'bundle-freshness' }) };
}

/**
 * The signed freshness statement of a 304, or why there is none to trust:
 * it must be present, signed by a key of the agent `guardian` in `keys` for
 * the freshness purpose, and well formed.
 */
export function readFreshness(options: { keys: KeyRing; header: (name: string) => string | null | undefined }): BundleFreshness | { problem: string } {
  const encoded = options.header(BUNDLE_FRESHNESS_HEADER);
  if (!encoded) return { problem: 'the Guardian answered 304 without a signed freshness statement, which cannot keep a bundle fresh' };
  if (encoded.length > 2048 || !/^[A-Za-z0-9_-]+$/.test(encoded))
    return { problem: `the ${BUNDLE_FRESHNESS_HEADER} header is not base64url of a short statement` };
  const text = Buffer.from(encoded, 'base64url').toString('utf8');
  const problem = bundleSignatureProblem({ body: text, keys: options.keys, header: options.header, purpose: 'bundle-freshness' });
  if (problem !== undefined) return { problem: `the freshness statement of the 304 is refused: ${problem}` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: 'the freshness statement of the 304 is not JSON' };
  }
  const statement = BundleFreshnessSchema.safeParse(parsed);
  if (!statement.success) return { problem: 'the freshness statement of the 304 is not {revision, digest, issued_at, expires_at}' };
  return statement.data;
}
