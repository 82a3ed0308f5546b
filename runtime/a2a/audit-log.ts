import { hash } from 'node:crypto';
import { activeTraceIds } from '../core/telemetry/tracing.js';

/** What happened to one agent-to-agent call. */
export type AuditDecision = 'allowed' | 'denied' | 'skipped' | 'signature_failure';

/**
 * One audit line: who called whom, what was decided and why. The message is
 * recorded only as its SHA-256, never as text.
 */
export interface AuditEvent {
  timestamp: string;
  source: string;
  target: string;
  decision: AuditDecision;
  reason: string;
  message_sha256: string;
  /** Who decided: `client` (caller-side validator), `server` (receiving agent), `guardian`. */
  checked_by: 'client' | 'server' | 'guardian';
  /** Unique id of a decision an agent made in process and shipped to the Guardian (decision logs), so a retried batch is recognisable. */
  decision_id?: string;
  /** The trace of the call decided, when it was traced. */
  trace_id?: string;
}

/** Where audit events go. */
export interface AuditLog {
  record(event: AuditEvent): void;
}

/** SHA-256 (hex) of a message, as audit events carry it. */
export function messageDigest(message: string | Uint8Array): string {
  return hash('sha256', message, 'hex');
}

/**
 * An audit log writing one JSON line per event (by default to standard error,
 * beside the agent's other log lines).
 */
export function createAuditLog(options: { write?: (line: string) => void } = {}): AuditLog {
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  return { record: (event) => write(JSON.stringify({ audit: 'a2a', ...event })) };
}

/** An audit log that drops everything (A2A_ENABLE_AUDIT_LOG off). */
export const disabledAuditLog: AuditLog = { record() {} };

/** Builds an event stamped now. */
export function auditEvent(fields: Omit<AuditEvent, 'timestamp' | 'message_sha256'> & { message: string | Uint8Array; now?: Date }): AuditEvent {
  return {
    timestamp: (fields.now ?? new Date()).toISOString(),
    source: fields.source,
    target: fields.target,
    decision: fields.decision,
    reason: fields.reason,
    message_sha256: messageDigest(fields.message),
    checked_by: fields.checked_by,
    ...traceIdField(),
  };
}

function traceIdField(): { trace_id?: string } {
  const ids = activeTraceIds();
  return ids ? { trace_id: ids.trace_id } : {};
}
