import { randomUUID } from 'node:crypto';
import { silentLogger, type Logger } from '../core/logger.js';
import type { AuditEvent, AuditLog } from './audit-log.js';
import type { SigningKey } from './signing/signing-key.js';
import { signBundle } from '../guardian/policy-bundle.js';

export interface DecisionLogShipperOptions {
  /** The Guardian's address; batches go to `POST <url>/v1/logs`. */
  guardianUrl: string;
  /** Events held while waiting for delivery before allows are dropped; default 10000. Denials are never dropped. */
  maxBuffered?: number;
  /** Events per POST; default 500 (the Guardian accepts up to 1000). */
  batchSize?: number;
  /** How long a new allow may wait for its batch; default 1000 ms. A denial waits at most 200 ms (or this, if shorter). */
  flushMs?: number;
  /** Longest wait between retries after a failed delivery (doubling from 100 ms); default 5000 ms. */
  maxBackoffMs?: number;
  /** Milliseconds one POST may take; default 5000. */
  timeoutMs?: number;
  /** Signs each batch (the Guardian's key of the agent `guardian`); a Guardian that has that key refuses unsigned batches. */
  signWith?: SigningKey;
  logger?: Logger;
}

/** Counters of a shipper since it started. */
export interface DecisionLogStats {
  recorded: number;
  delivered: number;
  /** Successful POSTs (so `delivered / batches` is the mean batch size). */
  batches: number;
  /** Events waiting (buffered or in flight). */
  pending: number;
  /** Allows (and skips) dropped because the buffer was full. */
  dropped: number;
  /** Denials kept although the buffer was full (they are never dropped). */
  keptOverBound: number;
  /** Failed deliveries (each retried). */
  failures: number;
}

const DECISION_LOG_PATH = '/v1/logs';
/** Default wait of an allow for its batch: one POST a second at most while calls are few (each costs a request on both ends). */
const FLUSH_MS = 1_000;
/** Longest wait of a denial for its batch: denials reach the audit trail soon after they happen. */
const DENIAL_FLUSH_MS = 200;

function isDenial(event: AuditEvent): boolean {
  return event.decision === 'denied' || event.decision === 'signature_failure';
}

/**
 * Ships the decisions an agent made in process to the Guardian's audit trail,
 * off the hot path: `record` only appends to an in-memory buffer; a timer
 * (unref'd) posts batches, at most a second after an allow and 200 ms after a
 * denial, retried with exponential back-off while the Guardian is away.
 * Denials are sent first. The buffer is bounded: when it is full the oldest allow
 * is dropped (and counted); a denial is never dropped, so under a long
 * outage with only denials the buffer grows past its bound (counted as
 * `keptOverBound`). Each event carries a `decision_id`, so the Guardian
 * ignores a batch it already took when a retry repeats it.
 *
 * @example
 * const shipper = new DecisionLogShipper({ guardianUrl: 'http://127.0.0.1:11438' });
 * shipper.record(auditEvent({ source: 'planner', target: 'executor', decision: 'denied', reason: 'no rule', checked_by: 'client', message: 'hi' }));
 * await shipper.flush();
 */
export class DecisionLogShipper implements AuditLog {
  readonly url: string;
  readonly #options: DecisionLogShipperOptions;
  readonly #logger: Logger;
  /** Denials waiting, oldest first: sent first, never dropped. */
  #denials: AuditEvent[] = [];
  /** Other decisions waiting, oldest first from `#othersHead` (dropped from there when the buffer is full). */
  #others: (AuditEvent | undefined)[] = [];
  #othersHead = 0;
  #inFlight = 0;
  #timer: NodeJS.Timeout | undefined;
  /** When the timer fires (ms since the epoch). */
  #timerDue = 0;
  #sending: Promise<void> | undefined;
  #consecutiveFailures = 0;
  #idle: Array<() => void> = [];
  readonly #stats = { recorded: 0, delivered: 0, batches: 0, dropped: 0, keptOverBound: 0, failures: 0 };

  constructor(options: DecisionLogShipperOptions) {
    this.#options = options;
    this.url = `${options.guardianUrl.replace(/\/+$/, '')}${DECISION_LOG_PATH}`;
    this.#logger = options.logger ?? silentLogger;
  }

  get stats(): DecisionLogStats {
    return { ...this.#stats, pending: this.#buffered + this.#inFlight };
  }

  /** Buffers one decision for delivery; never waits, never throws. */
  record(event: AuditEvent): void {
    this.#stats.recorded++;
    const stamped = event.decision_id ? event : { ...event, decision_id: randomUUID() };
    if (isDenial(stamped)) this.#denials.push(stamped);
    else this.#others.push(stamped);
    this.#enforceBound();
    if (this.#sending !== undefined) return; // the sender takes it (now or at its next timer)
    if (this.#buffered >= (this.#options.batchSize ?? 500) && this.#consecutiveFailures === 0) {
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = undefined;
      void this.#drain();
    } else {
      // A denial brings a later timer forward; a retry's back-off is never shortened.
      const delay = this.#flushDelay(isDenial(stamped));
      if (this.#timer === undefined || (this.#consecutiveFailures === 0 && Date.now() + delay < this.#timerDue)) this.#schedule(delay);
    }
  }

  /** How long a new event waits for its batch. */
  #flushDelay(denial: boolean): number {
    const flushMs = this.#options.flushMs ?? FLUSH_MS;
    return denial ? Math.min(flushMs, DENIAL_FLUSH_MS) : flushMs;
  }

  /** Resolves once every event recorded so far is delivered (waits through retries; for tests and shutdown). */
  flush(): Promise<void> {
    if (this.#buffered + this.#inFlight === 0) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.#idle.push(resolve));
    if (this.#sending === undefined && this.#consecutiveFailures === 0) {
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = undefined;
      void this.#drain();
    }
    return done;
  }

  /** Stops the timers; undelivered events stay counted in `pending`. */
  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  get #buffered(): number {
    return this.#denials.length + this.#others.length - this.#othersHead;
  }

  #enforceBound(): void {
    const max = this.#options.maxBuffered ?? 10_000;
    while (this.#buffered + this.#inFlight > max) {
      if (this.#othersHead >= this.#others.length) {
        this.#stats.keptOverBound++;
        return;
      }
      this.#others[this.#othersHead++] = undefined;
      this.#stats.dropped++;
    }
    if (this.#othersHead > 1024 && this.#othersHead * 2 > this.#others.length) {
      this.#others = this.#others.slice(this.#othersHead);
      this.#othersHead = 0;
    }
  }

  /** Up to `size` waiting events, denials first. */
  #takeBatch(size: number): AuditEvent[] {
    const batch = this.#denials.splice(0, size);
    const more = Math.min(size - batch.length, this.#others.length - this.#othersHead);
    if (more > 0) {
      batch.push(...(this.#others.slice(this.#othersHead, this.#othersHead + more) as AuditEvent[]));
      this.#othersHead += more;
      if (this.#othersHead === this.#others.length) {
        this.#others = [];
        this.#othersHead = 0;
      }
    }
    return batch;
  }

  /** Puts a batch that could not be delivered back in front of the queue. */
  #putBack(batch: AuditEvent[]): void {
    this.#denials = [...batch.filter(isDenial), ...this.#denials];
    this.#others = [...batch.filter((e) => !isDenial(e)), ...this.#others.slice(this.#othersHead)];
    this.#othersHead = 0;
  }

  #schedule(delayMs: number): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerDue = Date.now() + delayMs;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#drain();
    }, delayMs);
    this.#timer.unref();
  }

  #drain(): Promise<void> {
    return (this.#sending ??= this.#send().finally(() => (this.#sending = undefined)));
  }

  async #send(): Promise<void> {
    const batchSize = this.#options.batchSize ?? 500;
    // Full batches go at once; a partial one only when its timer fired (this call) or a flush waits for it.
    let partialAllowed = true;
    while (this.#buffered >= batchSize || (this.#buffered > 0 && (partialAllowed || this.#idle.length > 0))) {
      partialAllowed = false;
      const batch = this.#takeBatch(batchSize);
      this.#inFlight = batch.length;
      try {
        const body = JSON.stringify({ events: batch });
        const signature = this.#options.signWith ? signBundle({ body, key: this.#options.signWith, purpose: 'decision-logs' }) : {};
        const response = await fetch(this.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...signature },
          body,
          signal: AbortSignal.timeout(this.#options.timeoutMs ?? 5000),
          // A signed batch goes to the Guardian named, never re-sent where a redirect points; undici also skips
          // cloning the request and tee-ing its body for this mode (a third of a POST's CPU time here).
          redirect: 'error',
        });
        const text = await response.text();
        if (!response.ok) throw new Error(`HTTP ${response.status}: ${text.slice(0, 300)}`);
        this.#stats.delivered += batch.length;
        this.#stats.batches++;
        this.#consecutiveFailures = 0;
      } catch (error) {
        this.#inFlight = 0;
        this.#putBack(batch);
        this.#enforceBound();
        this.#stats.failures++;
        this.#consecutiveFailures++;
        const delay = Math.min(this.#options.maxBackoffMs ?? 5_000, 100 * 2 ** Math.min(this.#consecutiveFailures - 1, 16));
        if (this.#consecutiveFailures === 1 || this.#consecutiveFailures % 20 === 0) {
          this.#logger.warn('could not deliver decision logs to the Guardian; retrying', {
            url: this.url,
            pending: this.#buffered,
            retry_ms: delay,
            error: error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error),
          });
        }
        this.#schedule(delay);
        return;
      }
      this.#inFlight = 0;
    }
    if (this.#buffered > 0) this.#schedule(this.#flushDelay(this.#denials.length > 0));
    else for (const wake of this.#idle.splice(0)) wake();
  }
}
