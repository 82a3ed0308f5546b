import { checkResult, DEFAULT_PROBE_TIMEOUT_MS, type DoctorCheck, type ProbeOptions } from './doctor-check.js';
import { probeHttp, urlAt, type HttpAnswer } from './http-probe.js';

/** What a service's answer means; `fix` replaces the probe's own. */
export type Verdict = Pick<DoctorCheck, 'status' | 'detail'> & { fix?: string };

/** How to check one of our HTTP services. */
export interface ServiceProbe extends ProbeOptions {
  /** Label in the report: `policy engine`. */
  name: string;
  /** The service's address (any path; `path` is resolved against it). */
  url: string;
  path: string;
  /** The variable that sets the address, for messages: `OPA_URL`. */
  variable: string;
  /** True when `variable` was set: then a dead service is `missing` and required. */
  configured: boolean;
  /** The command that starts it. */
  fix: string;
  /** Turns a 2xx (or other) answer into a result; default: 2xx is `ok`. */
  judge?: (answer: HttpAnswer, where: string) => Verdict;
}

/**
 * GETs a service's health path and reports it: `ok` when it answers 2xx,
 * `missing` when nothing answers and the address was configured, `warn` when
 * nothing answers at the default address (`up` starts it) or the answer is bad.
 */
export async function checkService(probe: ServiceProbe): Promise<DoctorCheck> {
  const required = probe.configured;
  const target = urlAt(probe.url, probe.path);
  if (target === undefined) {
    return checkResult(probe.name, 'missing', `${probe.variable}=${JSON.stringify(probe.url)} is not a URL`, {
      fix: `set ${probe.variable} to an http(s) URL`,
      required,
    });
  }
  const answer = await probeHttp(target, probe.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS);
  if (!answer.answered) {
    const detail = `nothing answers at ${target} (${answer.reason})`;
    if (probe.configured) return checkResult(probe.name, 'missing', detail, { fix: probe.fix, required });
    return checkResult(probe.name, 'warn', `${detail}; \`framework-cli up\` starts it, or set ${probe.variable}`, { fix: probe.fix, required });
  }
  const judged = probe.judge?.(answer, target) ?? defaultJudge(answer, target);
  return checkResult(probe.name, judged.status, judged.detail, { fix: judged.status === 'ok' ? undefined : (judged.fix ?? probe.fix), required });
}

function defaultJudge(answer: HttpAnswer, where: string): Verdict {
  if (answer.ok) return { status: 'ok', detail: `healthy at ${where}` };
  return { status: 'warn', detail: `${where} answered HTTP ${answer.status}: ${summarise(answer.body)}` };
}

/** A short, one-line rendering of a response body for messages. */
export function summarise(body: unknown): string {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}
