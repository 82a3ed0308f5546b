import type { AgentCard } from '@a2a-js/sdk';
import { PermissionError } from './errors/permission-error.js';
import { SignatureError } from './errors/signature-error.js';
import { FrameworkError } from '../core/framework-error.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { cardRef } from './agent-card.js';
import { auditEvent, disabledAuditLog, type AuditLog } from './audit-log.js';
import type { KeyRing } from './signing/key-ring.js';
import type { NonceStore } from './signing/nonce-store.js';
import { SIGNATURE_HEADERS, verifyRequest } from './signing/request-signature.js';
import type { AgentRef } from './validation-input.js';
import type { A2AValidator } from './validator.js';

/** Who is calling, as the guard established it. */
export interface AdmittedCaller {
  /** Agent name: verified from the signature, or (unsigned, development only) as the caller claimed. */
  agent: string;
  verified: boolean;
}

export interface A2ARequestGuardOptions {
  /** The receiving agent's card (its name is the signed target; read per request, so a late URL fix shows). */
  self: AgentCard;
  keys: KeyRing;
  nonces: NonceStore;
  /** The receiving side's validator (checked_by `server`). */
  validator: A2AValidator;
  /** Accept requests with no signature headers at all (development only). */
  acceptUnsigned: boolean;
  /** Known agents by name, so policies see the caller's description and url. */
  peers?: ReadonlyMap<string, AgentRef>;
  audit?: AuditLog;
  logger?: Logger;
}

/**
 * The receiving agent's checks on an incoming A2A request, before anything
 * else runs: (1) the HMAC signature (unknown key, bad signature, stale
 * timestamp, replayed nonce → `SignatureError`, a 401), then (2) the access
 * policy with the caller identity taken from the verified headers
 * (→ `PermissionError`, a 403). A caller that skipped its own client-side
 * check is stopped here.
 */
export class A2ARequestGuard {
  readonly #options: A2ARequestGuardOptions;
  readonly #audit: AuditLog;
  readonly #logger: Logger;

  constructor(options: A2ARequestGuardOptions) {
    this.#options = options;
    this.#audit = options.audit ?? disabledAuditLog;
    this.#logger = options.logger ?? silentLogger;
  }

  /** Whether requests must be signed (the card then declares the scheme). */
  get signatureRequired(): boolean {
    return !this.#options.acceptUnsigned;
  }

  /** Checks the signature of the raw request (its body as text, or the bytes of a gRPC message); resolves to the caller. */
  async authenticate(request: {
    method: string;
    path: string;
    body: string | Uint8Array;
    header: (name: string) => string | undefined;
  }): Promise<AdmittedCaller> {
    const claimed = request.header(SIGNATURE_HEADERS.agent) ?? 'unknown';
    try {
      const caller = await verifyRequest({
        method: request.method,
        path: request.path,
        body: request.body,
        header: request.header,
        self: this.#options.self.name,
        keys: this.#options.keys,
        nonces: this.#options.nonces,
      });
      return { agent: caller.agent, verified: true };
    } catch (error) {
      if (error instanceof SignatureError && error.failure === 'unsigned' && this.#options.acceptUnsigned) {
        this.#logger.debug('accepted an unsigned A2A request (development only)', { claimed });
        return { agent: claimed === 'unknown' ? 'anonymous' : claimed, verified: false };
      }
      if (FrameworkError.isInstance(error) && error instanceof SignatureError) {
        this.#audit.record(
          auditEvent({
            source: claimed,
            target: this.#options.self.name,
            decision: 'signature_failure',
            reason: `${error.failure}: ${error.message}`,
            // A gRPC message is bytes: the audit keeps them as base64.
            message: typeof request.body === 'string' ? request.body : Buffer.from(request.body).toString('base64'),
            checked_by: 'server',
          }),
        );
        this.#logger.warn('refused an A2A request', { claimed, failure: error.failure });
      }
      throw error;
    }
  }

  /** Checks the access policy for `caller` sending `message`; throws `PermissionError` when denied. */
  async authorize(caller: AdmittedCaller, message: string): Promise<void> {
    const source = this.#options.peers?.get(caller.agent) ?? { name: caller.agent, description: '', url: '' };
    const [allowed, reason] = await this.#options.validator.validateA2AAccess(source, cardRef(this.#options.self), message);
    if (!allowed) throw new PermissionError({ reason, source: caller.agent, target: this.#options.self.name });
  }
}
