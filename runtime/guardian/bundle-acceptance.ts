/** The newest bundle an agent has used: its revision and the digest of its modules. */
export interface SeenRevision {
  revision: number;
  digest: string;
}

/** How far ahead of this agent's clock a signed time may be before it is refused; default of `BundleFollower`. */
export const DEFAULT_MAX_CLOCK_SKEW_MS = 10_000;

/**
 * Why a verified bundle (or freshness statement) may not be used now, or
 * undefined when it may. Its times must make sense (issued before it
 * expires, not issued ahead of this agent's clock by more than
 * `maxClockSkewMs`, not expired) and its revision must not be older than
 * the newest one this agent has used (`seen`), nor reuse that revision for
 * other modules. An older revision of the very modules in use (same digest)
 * is not a rollback: Guardian replicas number the same modules each their
 * own way.
 *
 * @example
 * bundleProblem({ revision: 3, digest: 'd1', issuedAt, expiresAt, seen: { revision: 5, digest: 'd2' }, now: Date.now() });
 * // 'revision 3 is older than revision 5, which this agent has already used: a rollback is refused'
 */
export function bundleProblem(options: {
  revision: number;
  digest: string;
  issuedAt: number;
  expiresAt: number;
  seen: SeenRevision | undefined;
  now: number;
  maxClockSkewMs?: number;
}): string | undefined {
  const { revision, digest, issuedAt, expiresAt, seen, now } = options;
  const skew = options.maxClockSkewMs ?? DEFAULT_MAX_CLOCK_SKEW_MS;
  if (!Number.isFinite(issuedAt) || !Number.isFinite(expiresAt)) return 'its signed times cannot be read';
  if (expiresAt <= issuedAt) return `it expires (${iso(expiresAt)}) before it was issued (${iso(issuedAt)})`;
  if (issuedAt > now + skew) {
    return `it was issued at ${iso(issuedAt)}, ${seconds(issuedAt - now)} s ahead of this agent's clock (more than ${seconds(skew)} s: check the clocks)`;
  }
  if (expiresAt <= now) return `it expired at ${iso(expiresAt)}, ${seconds(now - expiresAt)} s ago (revision ${revision})`;
  if (seen !== undefined && digest !== seen.digest) {
    if (revision < seen.revision)
      return `revision ${revision} is older than revision ${seen.revision}, which this agent has already used: a rollback is refused`;
    if (revision === seen.revision) return `revision ${revision} was already used for other policies: two different bundles claim it`;
  }
  return undefined;
}

/**
 * Why a bundle in use is no longer fresh, or undefined while it is: its
 * signed `expiresAt` has passed, or its signed `issuedAt` is more than
 * `maxAgeMs` ago. Only signed times count: answers that carry none (a bare
 * 304) never make a bundle younger.
 */
export function staleness(options: { issuedAt: number; expiresAt: number; now: number; maxAgeMs: number }): string | undefined {
  const { issuedAt, expiresAt, now, maxAgeMs } = options;
  if (now >= expiresAt) return `it expired at ${iso(expiresAt)}, ${seconds(now - expiresAt)} s ago`;
  if (now - issuedAt > maxAgeMs) return `the Guardian signed it ${seconds(now - issuedAt)} s ago, more than the ${seconds(maxAgeMs)} s it may be used for`;
  return undefined;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(ms < 10_000 ? 1 : 0);
}
