/** How a check came out: `ok`, `missing` (something needed is absent) or `warn` (works, with a caveat). */
export type CheckStatus = 'ok' | 'missing' | 'warn';

/** One line of the `framework-cli doctor` report. */
export interface DoctorCheck {
  /** Short label, e.g. `node`, `redis`, `port 8181`. */
  name: string;
  status: CheckStatus;
  /** What was found, in one sentence. */
  detail: string;
  /** What to run or change when the status is not `ok`. */
  fix?: string;
  /** A `missing` required check makes the report fail (exit code 1). */
  required: boolean;
}

/** Options every network check takes. */
export interface ProbeOptions {
  /** Milliseconds a probe may take; default {@link DEFAULT_PROBE_TIMEOUT_MS}. */
  timeoutMs?: number;
}

/** Each network probe gives up after this long (the report must come back quickly). */
export const DEFAULT_PROBE_TIMEOUT_MS = 1_500;

/** A check result, leaving out `fix` when there is none. */
export function checkResult(name: string, status: CheckStatus, detail: string, options: { fix?: string | undefined; required: boolean }): DoctorCheck {
  return { name, status, detail, ...(options.fix === undefined ? {} : { fix: options.fix }), required: options.required };
}
