import { DEFAULT_PROBE_TIMEOUT_MS } from './doctor-check.js';

/** What a GET answered: the status and the body (parsed JSON when it is JSON, else the text). */
export interface HttpAnswer {
  answered: true;
  status: number;
  ok: boolean;
  body: unknown;
}

/** Why nothing usable answered: refused, timed out, a bad URL. */
export interface HttpSilence {
  answered: false;
  reason: string;
}

/**
 * GETs `url` with a deadline and never throws: the doctor's way of asking
 * "is anything there, and what does it say".
 *
 * @example
 * const answer = await probeHttp('http://127.0.0.1:8181/health', 1500);
 * if (answer.answered && answer.ok) console.log('policy engine up');
 */
export async function probeHttp(url: string, timeoutMs = DEFAULT_PROBE_TIMEOUT_MS): Promise<HttpAnswer | HttpSilence> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { answered: false, reason: `${JSON.stringify(url)} is not a URL` };
  }
  try {
    const response = await fetch(target, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: keep the text.
    }
    return { answered: true, status: response.status, ok: response.ok, body };
  } catch (error) {
    return { answered: false, reason: describeFetchError(error, timeoutMs) };
  }
}

/** `connection refused`, `no answer within 1500 ms`, ... from what fetch threw. */
function describeFetchError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `no answer within ${timeoutMs} ms`;
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  if (cause?.code === 'ECONNREFUSED') return 'connection refused';
  if (cause?.code === 'ENOTFOUND') return 'host not found';
  return cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/** The field `key` of a JSON object body, if the body is one. */
export function bodyField(body: unknown, key: string): unknown {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)[key] : undefined;
}

/** `http://host:port/mcp` + `/health` → `http://host:port/health`; undefined for a bad URL. */
export function urlAt(base: string, path: string): string | undefined {
  try {
    return new URL(path, base).toString();
  } catch {
    return undefined;
  }
}
