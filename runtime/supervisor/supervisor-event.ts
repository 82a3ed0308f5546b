/**
 * What a `Supervisor` reports, one discriminated union; `type` values are
 * stable (they are the NDJSON `type` of `framework-cli up --json`).
 */
export type SupervisorEvent =
  /** A process of `service` is being spawned (attempt 1 is the first start). */
  | { type: 'starting'; service: string; port: number; attempt: number }
  /** `GET <url><healthPath>` answered 2xx. */
  | { type: 'healthy'; service: string; url: string; pid: number | undefined }
  /** One line the service wrote, also appended to its log file. */
  | { type: 'log'; service: string; stream: 'stdout' | 'stderr'; line: string }
  /** The service exited without being asked to; `crashes` counts those in the last minute. */
  | { type: 'crashed'; service: string; exitCode: number | null; signal: string | null; crashes: number }
  /** A new process replaced a crashed one after `delayMs`. */
  | { type: 'restarted'; service: string; pid: number | undefined; attempt: number; delayMs: number }
  /** The supervisor gave up on `service` and stops the whole stack; `lastLines` is the end of its log. */
  | { type: 'gave_up'; service: string; reason: string; lastLines: string[] }
  /** The service's process is gone after a stop. */
  | { type: 'stopped'; service: string };

export type SupervisorEventType = SupervisorEvent['type'];

/** Where a supervised service stands. */
export type ServiceState = 'pending' | 'starting' | 'healthy' | 'restarting' | 'failed' | 'stopped';
