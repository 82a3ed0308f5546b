import type { Span } from '@opentelemetry/api';
import { decisionAttributes } from '../core/telemetry/decision-attributes.js';
import { inSpan } from '../core/telemetry/tracing.js';
import type { AgentCard } from '@a2a-js/sdk';
import { loadA2AConfig, type A2AConfig, type A2AValidationMode, type Env } from '../core/config.js';
import { FrameworkError } from '../core/framework-error.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { GuardianAccessChecker, OpaAccessChecker, type AccessChecker } from './access-checker.js';
import { cardRef } from './agent-card.js';
import { auditEvent, createAuditLog, disabledAuditLog, type AuditLog } from './audit-log.js';
import { BundleAccessChecker } from './bundle-access-checker.js';
import { DecisionLogShipper } from './decision-log-shipper.js';
import type { KeyRing } from './signing/key-ring.js';
import { loadKeyRing } from './signing/load-key-ring.js';
import { BundleFollower } from '../guardian/bundle-follower.js';
import { BundleStateFile, bundleStateFileFromEnv } from '../guardian/bundle-state-file.js';
import { guardianBundleKey } from '../guardian/policy-bundle.js';
import { buildValidationInput, type AgentRef } from './validation-input.js';

/** `[isAllowed, reason]`, as the spec's validator returns it. */
export type ValidationResult = [isAllowed: boolean, reason: string];

export interface A2AValidatorOptions {
  mode: A2AValidationMode;
  /** Who decides; none configured counts as unavailable. */
  checker?: AccessChecker;
  audit?: AuditLog;
  /** Who is checking, for the audit trail: the caller (`client`) or the receiving agent (`server`). */
  checkedBy?: 'client' | 'server';
  logger?: Logger;
}

/**
 * Decides whether one agent may send a message to another, by asking the
 * Guardian (GUARDIAN_URL), evaluating its signed policy bundle in process
 * (A2A_DECISIONS=local) or, without a Guardian, the policy engine (OPA_URL).
 *
 * - `strict`: denied when the policy says no or nobody could be asked;
 * - `permissive`: denied on a policy decision, allowed when nobody could be asked (down,
 *   timed out, overloaded); an input the Guardian or the policy refuses or fails on is
 *   denied, in this mode too (`PolicyRefusedError`);
 * - `disabled`: always allowed (development only).
 *
 * It never throws for a policy problem: an unavailable Guardian is a value
 * turned into a decision by the mode. Every decision goes to the audit log.
 */
export class A2AValidator {
  readonly mode: A2AValidationMode;
  readonly checker: AccessChecker | undefined;
  readonly #audit: AuditLog;
  readonly #checkedBy: 'client' | 'server';
  readonly #logger: Logger;

  constructor(options: A2AValidatorOptions) {
    this.mode = options.mode;
    this.checker = options.checker;
    this.#audit = options.audit ?? disabledAuditLog;
    this.#checkedBy = options.checkedBy ?? 'client';
    this.#logger = options.logger ?? silentLogger;
  }

  /**
   * Checks, without making the call, whether `source` may send `message` to
   * `target`. Resolves to `[isAllowed, reason]`.
   *
   * @example
   * const [allowed, reason] = await getValidator().validateA2AAccess(planner, executor, 'Book the room');
   */
  async validateA2AAccess(
    source: AgentCard | AgentRef,
    target: AgentCard | AgentRef,
    message: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<ValidationResult> {
    const sourceRef = toRef(source);
    const targetRef = toRef(target);
    const attributes = { 'a2a.source_agent': sourceRef.name, 'a2a.target_agent': targetRef.name, 'a2a.checked_by': this.#checkedBy };
    return inSpan('a2a.validate', { attributes }, (span) => this.#validate(sourceRef, targetRef, message, options, span));
  }

  async #validate(sourceRef: AgentRef, targetRef: AgentRef, message: string, options: { signal?: AbortSignal }, span: Span): Promise<ValidationResult> {
    const record = (decision: 'allowed' | 'denied' | 'skipped', reason: string): ValidationResult => {
      this.#audit.record(auditEvent({ source: sourceRef.name, target: targetRef.name, decision, reason, message, checked_by: this.#checkedBy }));
      span.setAttributes(decisionAttributes({ result: decision === 'denied' ? 'deny' : 'allow', reasons: [reason], decidedBy: this.checker?.kind ?? 'mode' }));
      return [decision !== 'denied', reason];
    };
    if (this.mode === 'disabled') return record('skipped', 'validation is disabled (A2A_VALIDATION_MODE=disabled)');

    const input = buildValidationInput({ source: sourceRef, target: targetRef, message, mode: this.mode });
    let unavailable: string;
    if (this.checker === undefined) {
      unavailable = 'no Guardian or policy engine is configured (set GUARDIAN_URL or OPA_URL)';
    } else {
      try {
        const decision = await this.checker.check(input, options);
        return record(decision.allowed ? 'allowed' : 'denied', decision.reason);
      } catch (error) {
        // Asked, and it could not decide this input (refused it, or the policy failed on it): denied in every mode.
        if (FrameworkError.isInstance(error) && error.code === 'policy_refused') return record('denied', `${error.message}; denied in every mode`);
        if (!FrameworkError.isInstance(error) || error.code !== 'policy_unavailable') {
          this.#logger.error('access check failed unexpectedly', { error: String(error) });
        }
        unavailable = `the ${this.checker.kind} at ${this.checker.url} is unavailable (${error instanceof Error ? error.message : String(error)})`;
      }
    }
    this.#logger.warn('no policy decision', { source: sourceRef.name, target: targetRef.name, mode: this.mode, reason: unavailable });
    return this.mode === 'strict' ? record('denied', `${unavailable}; strict mode denies`) : record('allowed', `${unavailable}; permissive mode allows`);
  }
}

function toRef(card: AgentCard | AgentRef): AgentRef {
  return 'supportedInterfaces' in card ? cardRef(card) : card;
}

type CheckerConfig = Pick<A2AConfig, 'guardianUrl' | 'opaUrl' | 'a2aTimeoutMs'> &
  Partial<Pick<A2AConfig, 'a2aDecisions' | 'a2aBundleRefreshMs' | 'a2aBundleMaxAgeMs'>>;

/**
 * Followers and shippers are per process and per Guardian: every validator of
 * the process (caller side, request guard) decides from the same bundle and
 * feeds the same decision-log buffer.
 */
const followers = new Map<string, BundleFollower>();
const shippers = new Map<string, DecisionLogShipper>();

function followerFor(config: CheckerConfig & { guardianUrl: string }, options: { keys?: KeyRing; env?: Env; logger?: Logger }): BundleFollower {
  const refreshMs = config.a2aBundleRefreshMs ?? 2_000;
  const maxAgeMs = config.a2aBundleMaxAgeMs ?? 60_000;
  const id = JSON.stringify([config.guardianUrl, refreshMs, maxAgeMs, config.a2aTimeoutMs]);
  let follower = followers.get(id);
  if (follower === undefined) {
    follower = new BundleFollower({
      guardianUrl: config.guardianUrl,
      refreshMs,
      maxAgeMs,
      timeoutMs: config.a2aTimeoutMs,
      // Bundles must be signed by the Guardian's key: fail closed without one.
      verifyWith: options.keys ?? loadKeyRing({ env: options.env ?? process.env }),
      // The newest revision used survives restarts, so a restarted agent refuses a rollback too.
      state: new BundleStateFile({ path: bundleStateFileFromEnv(options.env ?? process.env) }),
      poll: true,
      ...(options.logger ? { logger: options.logger } : {}),
    });
    followers.set(id, follower);
  }
  return follower;
}

/** The process's decision-log shipper to the Guardian at `guardianUrl`. */
export function decisionLogShipperFor(guardianUrl: string, options: { logger?: Logger; keys?: KeyRing } = {}): DecisionLogShipper {
  let shipper = shippers.get(guardianUrl);
  if (shipper === undefined) {
    const signWith = options.keys ? guardianBundleKey(options.keys) : undefined;
    shipper = new DecisionLogShipper({ guardianUrl, ...(signWith ? { signWith } : {}), ...(options.logger ? { logger: options.logger } : {}) });
    shippers.set(guardianUrl, shipper);
  }
  return shipper;
}

/**
 * Waits (at most `timeoutMs`, default 2000) until every decision log of this
 * process reached its Guardian, for a clean shutdown; logs a warning with the
 * count of what could not be delivered in time (lost with the process).
 */
export async function flushDecisionLogs(options: { timeoutMs?: number; logger?: Logger } = {}): Promise<void> {
  const pending = [...shippers.values()].filter((shipper) => shipper.stats.pending > 0);
  if (pending.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, options.timeoutMs ?? 2_000)));
  await Promise.race([Promise.all(pending.map((shipper) => shipper.flush())), timeout]);
  clearTimeout(timer);
  for (const shipper of pending) {
    const { pending: left } = shipper.stats;
    if (left > 0) (options.logger ?? silentLogger).warn('decision logs not delivered before shutdown', { url: shipper.url, pending: left });
  }
}

/**
 * The access checker a configuration names: with GUARDIAN_URL and
 * A2A_DECISIONS=local, the Guardian's signed bundle evaluated in process
 * (verified with `keys`, default the A2A key ring of `env`); else the
 * Guardian; else the policy engine; else none.
 */
export function accessCheckerFor(config: CheckerConfig, options: { keys?: KeyRing; env?: Env; logger?: Logger } = {}): AccessChecker | undefined {
  if (config.guardianUrl && config.a2aDecisions === 'local') {
    return new BundleAccessChecker({ follower: followerFor({ ...config, guardianUrl: config.guardianUrl }, options) });
  }
  if (config.guardianUrl) return new GuardianAccessChecker({ url: config.guardianUrl, timeoutMs: config.a2aTimeoutMs });
  if (config.opaUrl) return new OpaAccessChecker({ url: config.opaUrl, timeoutMs: config.a2aTimeoutMs });
  return undefined;
}

/**
 * Builds a validator from an A2A configuration. With A2A_DECISIONS=local its
 * decisions are also shipped to the Guardian's audit trail (`POST /v1/logs`,
 * batched, off the hot path).
 */
export function createValidator(
  config: A2AConfig,
  options: { checkedBy?: 'client' | 'server'; logger?: Logger; audit?: AuditLog; keys?: KeyRing; env?: Env } = {},
): A2AValidator {
  let audit = options.audit ?? (config.a2aEnableAuditLog ? createAuditLog() : disabledAuditLog);
  const local = config.guardianUrl !== undefined && config.a2aDecisions === 'local';
  // Local decisions verify bundles and sign decision logs with the `guardian` key of this ring.
  const keys = local ? (options.keys ?? loadKeyRing({ env: options.env ?? process.env })) : options.keys;
  if (local && config.guardianUrl) {
    const shipper = decisionLogShipperFor(config.guardianUrl, { ...(keys ? { keys } : {}), ...(options.logger ? { logger: options.logger } : {}) });
    const own = audit;
    audit = own === disabledAuditLog ? shipper : { record: (event) => (own.record(event), shipper.record(event)) };
  }
  return new A2AValidator({
    mode: config.a2aValidationMode,
    checker: accessCheckerFor(config, { ...options, ...(keys ? { keys } : {}) }),
    audit,
    checkedBy: options.checkedBy ?? 'client',
    ...(options.logger ? { logger: options.logger } : {}),
  });
}

/**
 * The validator the environment describes (A2A_VALIDATION_MODE, GUARDIAN_URL,
 * OPA_URL, A2A_ENABLE_AUDIT_LOG); `strict` when nothing is configured.
 * Configuration is read when called, not at import.
 *
 * @example
 * const [allowed, reason] = await getValidator().validateA2AAccess(sourceCard, targetCard, 'hello');
 */
export function getValidator(options: { env?: Env; logger?: Logger } = {}): A2AValidator {
  const env = options.env ?? process.env;
  return createValidator(loadA2AConfig({ env }), { env, ...(options.logger ? { logger: options.logger } : {}) });
}
