import type { AgentCard } from '@a2a-js/sdk';
import { loadA2AConfig, type A2AConfig, type A2AValidationMode, type Env } from '../core/config.js';
import { FrameworkError } from '../core/framework-error.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { GuardianAccessChecker, OpaAccessChecker, type AccessChecker } from './access-checker.js';
import { cardRef } from './agent-card.js';
import { auditEvent, createAuditLog, disabledAuditLog, type AuditLog } from './audit-log.js';
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
 * Guardian (GUARDIAN_URL) or, without one, the policy engine (OPA_URL).
 *
 * - `strict`: denied when the policy says no or nobody could be asked;
 * - `permissive`: denied only on an explicit policy decision, allowed when nobody answers;
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
    const record = (decision: 'allowed' | 'denied' | 'skipped', reason: string): ValidationResult => {
      this.#audit.record(auditEvent({ source: sourceRef.name, target: targetRef.name, decision, reason, message, checked_by: this.#checkedBy }));
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

/** The access checker a configuration names: the Guardian first, else the policy engine, else none. */
export function accessCheckerFor(config: Pick<A2AConfig, 'guardianUrl' | 'opaUrl' | 'a2aTimeoutMs'>): AccessChecker | undefined {
  if (config.guardianUrl) return new GuardianAccessChecker({ url: config.guardianUrl, timeoutMs: config.a2aTimeoutMs });
  if (config.opaUrl) return new OpaAccessChecker({ url: config.opaUrl, timeoutMs: config.a2aTimeoutMs });
  return undefined;
}

/** Builds a validator from an A2A configuration. */
export function createValidator(config: A2AConfig, options: { checkedBy?: 'client' | 'server'; logger?: Logger; audit?: AuditLog } = {}): A2AValidator {
  return new A2AValidator({
    mode: config.a2aValidationMode,
    checker: accessCheckerFor(config),
    audit: options.audit ?? (config.a2aEnableAuditLog ? createAuditLog() : disabledAuditLog),
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
  return createValidator(loadA2AConfig({ env: options.env ?? process.env }), options.logger ? { logger: options.logger } : {});
}
