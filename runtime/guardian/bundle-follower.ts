import { JSON_CALL_MAX_BYTES, wholeText } from '../a2a/http-fetch.js';
import type { KeyRing } from '../a2a/signing/key-ring.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { CompiledPolicy } from '../policy/engine.js';
import { bundleProblem, staleness, type SeenRevision } from './bundle-acceptance.js';
import { readFreshness } from './bundle-freshness.js';
import type { BundleStateFile } from './bundle-state-file.js';
import { POLICY_BUNDLE_PATH } from './guardian-responses.js';
import { bundleSignatureProblem, PolicyBundleSchema } from './policy-bundle.js';

export interface BundleFollowerOptions {
  /** The Guardian's address. */
  guardianUrl: string;
  /** How often the bundle is re-checked with the Guardian (conditional GET, ETag); default 2000 ms. */
  refreshMs?: number;
  /** How long after the Guardian signed it (bundle or freshness statement) a bundle may be used; default 60000 ms. */
  maxAgeMs?: number;
  /** Milliseconds to wait for one answer of the Guardian; default 5000. */
  timeoutMs?: number;
  /** The largest answer read, in bytes; a larger one is refused as it arrives. Default 64 MiB, as every policy call. */
  maxBytes?: number;
  /**
   * The ring holding the key of the agent `guardian`: every bundle must be
   * signed with it. An unsigned or badly signed bundle is refused (and a
   * refused refresh keeps the last good bundle until it expires); a ring
   * without that key refuses every bundle.
   */
  verifyWith: KeyRing;
  /**
   * Where the newest revision used is kept across restarts (see
   * `BundleStateFile`); without it only this process remembers it, and a
   * restarted agent relies on the bundles' signed expiry alone.
   */
  state?: BundleStateFile;
  /** How far ahead of this agent's clock a signed time may be; default 10000 ms. */
  maxClockSkewMs?: number;
  /**
   * Re-check every `refreshMs` on an unref'd timer, so a policy change reaches
   * an idle agent too; without it the bundle is re-checked only when used.
   */
  poll?: boolean;
  logger?: Logger;
}

/** What a decision can use now: the compiled bundle, or why there is none. */
export type BundleState = { policy: CompiledPolicy; revision: number } | { unavailable: string };

interface Held {
  revision: number;
  digest: string;
  policy: CompiledPolicy;
  /** Signed times of the newest statement about these modules (the bundle, or a 304's freshness statement). */
  issuedAt: number;
  expiresAt: number;
  /** When this process last heard from the Guardian about it (for scheduling refreshes only; never for freshness). */
  checkedAt: number;
}

/**
 * Follows the Guardian's policy bundle: fetches it, verifies its signature,
 * refuses a rollback (a revision older than the newest one used, kept across
 * restarts in `state`) and an expired bundle, compiles it once per set of
 * modules and re-checks it in the background (ETag; a 304 counts only with
 * its signed freshness statement). The hot path (`current()`) is synchronous
 * and never waits for the network. A bundle past its signed expiry, or
 * signed more than `maxAgeMs` ago, is reported unavailable, so the caller's
 * mode decides (strict denies).
 *
 * @example
 * const follower = new BundleFollower({ guardianUrl: 'http://127.0.0.1:11438', verifyWith: keys, poll: true });
 * const state = await follower.ready();
 * if ('policy' in state) state.policy.evaluate(['a2a_access'], input);
 */
export class BundleFollower {
  readonly url: string;
  readonly #options: BundleFollowerOptions;
  readonly #logger: Logger;
  #bundle: Held | undefined;
  /** The newest revision used (from this process, or the state file once read). */
  #seen: SeenRevision | undefined;
  #stateRead = false;
  #error: string | undefined;
  #refreshing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #lastAttempt = 0;
  #waiters: Array<() => void> = [];

  constructor(options: BundleFollowerOptions) {
    this.#options = options;
    this.url = `${options.guardianUrl.replace(/\/+$/, '')}${POLICY_BUNDLE_PATH}`;
    this.#logger = options.logger ?? silentLogger;
    if (options.poll) {
      this.#timer = setInterval(() => void this.refresh(), this.#refreshMs);
      this.#timer.unref();
    }
  }

  get #refreshMs(): number {
    return this.#options.refreshMs ?? 2_000;
  }

  /** The revision in use, if any. */
  get revision(): number | undefined {
    return this.#bundle?.revision;
  }

  /** The bundle to decide with now; starts a background refresh when one is due. Never waits. */
  current(): BundleState {
    const now = Date.now();
    const bundle = this.#bundle;
    // Due, and not tried within the last refresh period (a Guardian that is down is not asked on every call).
    if ((bundle === undefined || now - bundle.checkedAt >= this.#refreshMs) && now - this.#lastAttempt >= this.#refreshMs) void this.refresh();
    if (bundle === undefined) return { unavailable: `no policy bundle from the Guardian (${this.#error ?? 'not fetched'})` };
    const stale = staleness({ issuedAt: bundle.issuedAt, expiresAt: bundle.expiresAt, now, maxAgeMs: this.#options.maxAgeMs ?? 60_000 });
    if (stale !== undefined) return { unavailable: `the policy bundle is stale: ${stale} (${this.#error ?? 'no fresh signed answer'})` };
    return { policy: bundle.policy, revision: bundle.revision };
  }

  /** As `current()`, but waits for the first fetch when there is no bundle yet. */
  async ready(): Promise<BundleState> {
    if (this.#bundle === undefined) await this.refresh();
    return this.current();
  }

  /** Resolves after the next refresh that loads new modules (for tests and tools that wait for a change). */
  nextRevision(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Re-checks the bundle with the Guardian now (one refresh at a time); never rejects. */
  refresh(): Promise<void> {
    return (this.#refreshing ??= this.#fetch().finally(() => (this.#refreshing = undefined)));
  }

  /** Stops polling. */
  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Fetches the bundle (conditionally, by ETag); keeps the last good one when the Guardian cannot be asked or the answer is refused. */
  async #fetch(): Promise<void> {
    const url = this.url;
    this.#lastAttempt = Date.now();
    try {
      if (!this.#options.verifyWith) throw new Error('refused: no key ring to verify the bundle with (the key of the agent "guardian")');
      this.#readState();
      const held = this.#bundle;
      const headers: Record<string, string> = held ? { 'if-none-match': `"${held.digest}"` } : {};
      // A redirect is not followed (as no policy call follows one): the bundle comes from the Guardian's own address.
      const response = await fetch(url, { headers, redirect: 'manual', signal: AbortSignal.timeout(this.#options.timeoutMs ?? 5000) });
      if (response.status === 304 && held) {
        this.#takeFreshness(held, response);
        return;
      }
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status <= 399 && location !== null) {
        await response.body?.cancel();
        throw new Error(`refused: HTTP ${response.status}, a redirect to ${JSON.stringify(location.slice(0, 200))}, which is not followed`);
      }
      const text = await wholeText(response, this.#options.maxBytes ?? JSON_CALL_MAX_BYTES);
      if (!response.ok) throw new Error(`HTTP ${response.status}: ${text.slice(0, 300)}`);
      const problem = bundleSignatureProblem({ body: text, keys: this.#options.verifyWith, header: (name) => response.headers.get(name) });
      if (problem !== undefined) throw new Error(`refused: ${problem}`);
      const parsed = PolicyBundleSchema.safeParse(JSON.parse(text));
      if (!parsed.success) throw new Error('refused: the bundle is not {revision, digest, issued_at, expires_at, modules}');
      const bundle = parsed.data;
      const times = { issuedAt: Date.parse(bundle.issued_at), expiresAt: Date.parse(bundle.expires_at) };
      const refused = bundleProblem({ revision: bundle.revision, digest: bundle.digest, ...times, seen: this.#seen, now: Date.now(), ...this.#skew() });
      if (refused !== undefined) throw new Error(`refused: ${refused}`);
      const changed = held?.digest !== bundle.digest;
      // The policy engine is loaded with the first bundle: an agent that never decides locally never holds it.
      const policy = changed
        ? (await import('../policy/engine.js')).compilePolicy({
            modules: bundle.modules.map((m) => ({ file: m.id, source: m.raw })),
            ...(bundle.data ? { data: bundle.data } : {}),
          })
        : held.policy;
      // The same modules again never get older: an earlier signed copy of them cannot shorten or reset their time.
      const newest = !changed && held.issuedAt >= times.issuedAt ? { issuedAt: held.issuedAt, expiresAt: held.expiresAt } : times;
      this.#bundle = { revision: Math.max(bundle.revision, changed ? 0 : held.revision), digest: bundle.digest, policy, ...newest, checkedAt: Date.now() };
      this.#error = undefined;
      await this.#remember({ revision: bundle.revision, digest: bundle.digest });
      if (changed) {
        this.#logger.info('policy bundle loaded', { revision: bundle.revision, modules: bundle.modules.length });
        for (const wake of this.#waiters.splice(0)) wake();
      }
    } catch (error) {
      const message = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      // Logged when the problem starts or changes, not on every retry of an outage.
      if (message !== this.#error) this.#logger.warn('could not refresh the policy bundle from the Guardian', { url, error: message });
      this.#error = message;
    }
  }

  /** A 304 keeps `held` fresh only through its signed statement about these very modules, newer than the one held. */
  #takeFreshness(held: Held, response: Response): void {
    const statement = readFreshness({ keys: this.#options.verifyWith, header: (name) => response.headers.get(name) });
    if ('problem' in statement) throw new Error(`refused: ${statement.problem}`);
    if (statement.digest !== held.digest) throw new Error('refused: the freshness statement of the 304 is about other policies than the bundle in use');
    const times = { issuedAt: Date.parse(statement.issued_at), expiresAt: Date.parse(statement.expires_at) };
    const refused = bundleProblem({ revision: statement.revision, digest: statement.digest, ...times, seen: this.#seen, now: Date.now(), ...this.#skew() });
    if (refused !== undefined) throw new Error(`refused: the freshness statement of the 304: ${refused}`);
    if (times.issuedAt > held.issuedAt) Object.assign(held, times);
    held.checkedAt = Date.now();
    this.#error = undefined;
  }

  #skew(): { maxClockSkewMs?: number } {
    return this.#options.maxClockSkewMs === undefined ? {} : { maxClockSkewMs: this.#options.maxClockSkewMs };
  }

  /** Reads the newest revision used by earlier runs, once (again after a failed read: until then no bundle is taken). */
  #readState(): void {
    if (this.#stateRead || !this.#options.state) return;
    const stored = this.#options.state.read(this.url);
    if (stored !== undefined && (this.#seen === undefined || stored.revision > this.#seen.revision)) this.#seen = stored;
    this.#stateRead = true;
  }

  /** Raises the newest revision used, here and in the state file (a failed write is logged: the signed expiry still bounds a restart). */
  async #remember(seen: SeenRevision): Promise<void> {
    if (this.#seen !== undefined && this.#seen.revision >= seen.revision) return;
    this.#seen = seen;
    try {
      await this.#options.state?.record(this.url, seen);
    } catch (error) {
      this.#logger.warn('could not keep the policy bundle revision across restarts', {
        file: this.#options.state?.path,
        revision: seen.revision,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
