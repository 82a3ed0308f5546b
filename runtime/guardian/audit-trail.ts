import type { AuditEvent, AuditLog } from '../a2a/audit-log.js';

/** How many events the Guardian keeps by default. */
export const DEFAULT_AUDIT_CAPACITY = 1000;

/** What `AuditTrail.recent` returns at most, and by default. */
export const AUDIT_LIST_MAX = 1000;
export const AUDIT_LIST_DEFAULT = 100;

export interface AuditTrailOptions {
  /** Events kept in memory; the oldest go first. Default 1000. */
  capacity?: number;
  /** Another log every event is also written to (e.g. JSON lines on stderr). */
  forward?: AuditLog;
}

/**
 * The Guardian's audit trail: the latest events in an in-memory ring buffer
 * (lost on restart), each optionally forwarded to another `AuditLog`.
 *
 * @example
 * const trail = new AuditTrail({ capacity: 500, forward: createAuditLog() });
 * trail.record(auditEvent({ source: 'planner', target: 'database', decision: 'denied', reason: 'no rule', checked_by: 'guardian', message: '' }));
 * trail.recent({ limit: 10 }); // newest last
 */
export class AuditTrail implements AuditLog {
  readonly capacity: number;
  readonly #forward: AuditLog | undefined;
  readonly #events: (AuditEvent | undefined)[];
  /** Index the next event goes to. */
  #next = 0;
  #size = 0;

  constructor(options: AuditTrailOptions = {}) {
    const capacity = options.capacity ?? DEFAULT_AUDIT_CAPACITY;
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`AuditTrail capacity must be a positive whole number (got ${capacity})`);
    this.capacity = capacity;
    this.#forward = options.forward;
    this.#events = new Array<AuditEvent | undefined>(capacity);
  }

  /** Number of events held. */
  get size(): number {
    return this.#size;
  }

  record(event: AuditEvent): void {
    this.#events[this.#next] = event;
    this.#next = (this.#next + 1) % this.capacity;
    this.#size = Math.min(this.#size + 1, this.capacity);
    this.#forward?.record(event);
  }

  /**
   * The newest `limit` events (default 100) recorded after `since` (by their
   * timestamp, strictly later), oldest first.
   */
  recent(options: { limit?: number; since?: Date } = {}): AuditEvent[] {
    const limit = options.limit ?? AUDIT_LIST_DEFAULT;
    const since = options.since?.getTime();
    const picked: AuditEvent[] = [];
    // Walk newest to oldest, stop once `limit` are found.
    for (let i = 1; i <= this.#size && picked.length < limit; i++) {
      const event = this.#events[(this.#next - i + this.capacity) % this.capacity];
      if (!event) break;
      if (since !== undefined && !(Date.parse(event.timestamp) > since)) continue;
      picked.push(event);
    }
    return picked.reverse();
  }
}
