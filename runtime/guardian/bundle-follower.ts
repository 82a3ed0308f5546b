import type { KeyRing } from '../a2a/signing/key-ring.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { compilePolicy, type CompiledPolicy } from '../policy/engine.js';
import { POLICY_BUNDLE_PATH } from './guardian-responses.js';
import { bundleSignatureProblem, PolicyBundleSchema } from './policy-bundle.js';

export interface BundleFollowerOptions {
  /** The Guardian's address. */
  guardianUrl: string;
  /** How often the bundle is re-checked with the Guardian (conditional GET, ETag); default 2000 ms. */
  refreshMs?: number;
  /** How old a bundle may get without the Guardian confirming it before it counts as unavailable; default 60000 ms. */
  maxAgeMs?: number;
  /** Milliseconds to wait for one answer of the Guardian; default 5000. */
  timeoutMs?: number;
  /**
   * Require a signature by a key of the agent `guardian` in this ring: an
   * unsigned or badly signed bundle is refused (and a refused refresh keeps
   * the last good bundle until it grows too old). Without it, any bundle is taken.
   */
  verifyWith?: KeyRing;
  /**
   * Re-check every `refreshMs` on an unref'd timer, so a policy change reaches
   * an idle agent too; without it the bundle is re-checked only when used.
   */
  poll?: boolean;
  logger?: Logger;
}

/** What a decision can use now: the compiled bundle, or why there is none. */
export type BundleState = { policy: CompiledPolicy; revision: string } | { unavailable: string };

/**
 * Follows the Guardian's policy bundle: fetches it, verifies its signature,
 * compiles it once per revision and re-checks it in the background (ETag, 304
 * when unchanged). The hot path (`current()`) is synchronous and never waits
 * for the network. A bundle the Guardian has not confirmed for `maxAgeMs`
 * is reported unavailable, so the caller's mode decides (strict denies).
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
  #bundle: { revision: string; policy: CompiledPolicy; confirmedAt: number } | undefined;
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
  get revision(): string | undefined {
    return this.#bundle?.revision;
  }

  /** The bundle to decide with now; starts a background refresh when one is due. Never waits. */
  current(): BundleState {
    const now = Date.now();
    const bundle = this.#bundle;
    // Due, and not tried within the last refresh period (a Guardian that is down is not asked on every call).
    if ((bundle === undefined || now - bundle.confirmedAt >= this.#refreshMs) && now - this.#lastAttempt >= this.#refreshMs) void this.refresh();
    if (bundle === undefined) return { unavailable: `no policy bundle from the Guardian (${this.#error ?? 'not fetched'})` };
    const maxAge = this.#options.maxAgeMs ?? 60_000;
    if (now - bundle.confirmedAt > maxAge) {
      return {
        unavailable: `the policy bundle is stale: the Guardian has not confirmed it for ${Math.round((now - bundle.confirmedAt) / 1000)} s (${this.#error ?? 'no answer'})`,
      };
    }
    return { policy: bundle.policy, revision: bundle.revision };
  }

  /** As `current()`, but waits for the first fetch when there is no bundle yet. */
  async ready(): Promise<BundleState> {
    if (this.#bundle === undefined) await this.refresh();
    return this.current();
  }

  /** Resolves after the next refresh that loads a new revision (for tests and tools that wait for a change). */
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

  /** Fetches the bundle (conditionally, by ETag); keeps the last good one when the Guardian cannot be asked or the bundle is refused. */
  async #fetch(): Promise<void> {
    const url = this.url;
    this.#lastAttempt = Date.now();
    try {
      const headers: Record<string, string> = this.#bundle ? { 'if-none-match': `"${this.#bundle.revision}"` } : {};
      const response = await fetch(url, { headers, signal: AbortSignal.timeout(this.#options.timeoutMs ?? 5000) });
      if (response.status === 304 && this.#bundle) {
        this.#bundle.confirmedAt = Date.now();
        this.#error = undefined;
        return;
      }
      const text = await response.text();
      if (!response.ok) throw new Error(`HTTP ${response.status}: ${text.slice(0, 300)}`);
      if (this.#options.verifyWith) {
        const problem = bundleSignatureProblem({ body: text, keys: this.#options.verifyWith, header: (name) => response.headers.get(name) });
        if (problem !== undefined) throw new Error(`refused: ${problem}`);
      }
      const bundle = PolicyBundleSchema.parse(JSON.parse(text));
      const policy = compilePolicy({ modules: bundle.modules.map((m) => ({ file: m.id, source: m.raw })), ...(bundle.data ? { data: bundle.data } : {}) });
      const changed = this.#bundle?.revision !== bundle.revision;
      this.#bundle = { revision: bundle.revision, policy, confirmedAt: Date.now() };
      this.#error = undefined;
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
}
