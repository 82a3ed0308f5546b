import { createAuditLog } from '../a2a/audit-log.js';
import { OpaPolicyClient } from '../a2a/policy-client.js';
import type { SigningKey } from '../a2a/signing/signing-key.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { listen } from '../core/server/listen.js';
import { checkLoopbackListen } from '../core/server/loopback.js';
import { AuditTrail } from './audit-trail.js';
import { createGuardian } from './create-guardian.js';
import { DEFAULT_GUARDIAN_HOST, DEFAULT_GUARDIAN_PORT } from './guardian-config.js';

export interface StartGuardianOptions {
  /** Address to bind; default 127.0.0.1. */
  host?: string;
  /** Listen on a host beyond loopback (`0.0.0.0`, a LAN address); refused otherwise (`ConfigError`). */
  allowRemote?: boolean;
  /** Default 11438; 0 picks a free one. */
  port?: number;
  /** The policy engine's address (OPA or `framework-cli policy serve`). */
  opaUrl: string;
  logger?: Logger;
  /** Also write each audit event as a JSON line on stderr (A2A_ENABLE_AUDIT_LOG). */
  auditToLog?: boolean;
  /** How long one question to the policy engine may take; default 2 s. */
  policyTimeoutMs?: number;
  /** Largest accepted request body; default 1 MiB. */
  maxBodyBytes?: number;
  /** Signs the policy bundles (a key of the agent `guardian`, see `guardianBundleKey`). */
  bundleKey?: SigningKey;
  /** Events the audit trail keeps; default 1000. */
  auditCapacity?: number;
  /** How long a signed bundle (or a 304's freshness statement) stays valid; default 60000 ms. */
  bundleTtlMs?: number;
}

export interface RunningGuardian {
  readonly url: string;
  readonly port: number;
  /** The in-memory audit trail the service answers `GET /v1/audit` from. */
  readonly audit: AuditTrail;
  close(): Promise<void>;
}

/**
 * Serves the Guardian on `host:port`. It starts whether or not the policy
 * engine is up (its `/health` tells); a taken port rejects with a
 * `FrameworkError` saying what to change.
 *
 * @example
 * const guardian = await startGuardian({ opaUrl: 'http://127.0.0.1:8181', port: 0 });
 * await fetch(`${guardian.url}/health`);
 * await guardian.close();
 */
export async function startGuardian(options: StartGuardianOptions): Promise<RunningGuardian> {
  const host = options.host ?? DEFAULT_GUARDIAN_HOST;
  checkLoopbackListen({ service: 'The Guardian', host, allowRemote: options.allowRemote ?? false, option: '--allow-remote' });
  const policy = new OpaPolicyClient({ url: options.opaUrl, ...(options.policyTimeoutMs === undefined ? {} : { timeoutMs: options.policyTimeoutMs }) });
  const audit = new AuditTrail({
    ...(options.auditToLog ? { forward: createAuditLog() } : {}),
    ...(options.auditCapacity === undefined ? {} : { capacity: options.auditCapacity }),
  });
  const app = createGuardian({
    policy,
    audit,
    logger: options.logger ?? silentLogger,
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    ...(options.bundleKey ? { bundleKey: options.bundleKey } : {}),
    ...(options.bundleTtlMs === undefined ? {} : { bundleTtlMs: options.bundleTtlMs }),
  });
  const listening = await listen(app, {
    host,
    port: options.port ?? DEFAULT_GUARDIAN_PORT,
    portHint: 'pass --addr 127.0.0.1:<port> or set GUARDIAN_PORT',
    // Validations are answered below Hono (see createGuardian's `direct`).
    direct: app.direct,
  });
  return { url: listening.url, port: listening.port, audit, close: () => listening.close() };
}
