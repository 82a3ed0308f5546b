import { policyAnswerError, PolicyUnavailableError } from './errors/policy-unavailable-error.js';
import { callFailureDetail, jsonCall, type JsonCallAnswer, type JsonCallInit } from './http-fetch.js';

/** Asks a policy engine for a decision. */
export interface PolicyClient {
  /** Address of the engine, for messages. */
  readonly url: string;
  /**
   * Evaluates the document at `path` (`a2a_access`, `trading/allow`) for
   * `input`. Resolves to OPA's `result` (undefined when the document is
   * undefined); rejects with `PolicyUnavailableError` when no decision could
   * be had.
   */
  evaluate(path: string, input: unknown, options?: { signal?: AbortSignal }): Promise<unknown>;
  /** True when the engine answers its health check. */
  healthy(options?: { signal?: AbortSignal }): Promise<boolean>;
  /** The policy modules the engine holds (OPA's `GET /v1/policies`), for bundles; rejects with `PolicyUnavailableError`. */
  listPolicies?(options?: { signal?: AbortSignal }): Promise<{ id: string; raw: string }[]>;
}

export const DEFAULT_POLICY_TIMEOUT_MS = 2_000;

const PACKAGE_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\/[A-Za-z_][A-Za-z0-9_]*)*$/;

/** True for a package or rule path such as `a2a_access/allow`. */
export function isPolicyPath(path: string): boolean {
  return PACKAGE_PATH.test(path);
}

/**
 * A client of OPA's REST data API (`POST /v1/data/<path>`), so a real OPA
 * and `framework-cli policy serve` both work.
 *
 * @example
 * const opa = new OpaPolicyClient({ url: 'http://127.0.0.1:8181' });
 * const doc = await opa.evaluate('a2a_access', input);
 */
export class OpaPolicyClient implements PolicyClient {
  readonly url: string;
  readonly #timeoutMs: number;

  constructor(options: { url: string; timeoutMs?: number }) {
    this.url = options.url.replace(/\/+$/, '');
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_POLICY_TIMEOUT_MS;
  }

  async evaluate(path: string, input: unknown, options: { signal?: AbortSignal } = {}): Promise<unknown> {
    if (!isPolicyPath(path)) throw new TypeError(`Not a policy path: ${JSON.stringify(path)} (use package/rule, e.g. a2a_access/allow)`);
    const url = `${this.url}/v1/data/${path}`;
    const { ok, status, text } = await this.#call(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input }),
      },
      options.signal,
    );
    // OPA answers 400 for input it cannot take and 500 when the policy fails on it: refusals of this input, not an outage.
    if (!ok) throw policyAnswerError(url, status, text);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (cause) {
      throw new PolicyUnavailableError({ url, detail: 'the answer is not JSON', cause });
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new PolicyUnavailableError({ url, detail: 'the answer is not a JSON object' });
    }
    return (body as { result?: unknown }).result;
  }

  async listPolicies(options: { signal?: AbortSignal } = {}): Promise<{ id: string; raw: string }[]> {
    const url = `${this.url}/v1/policies`;
    const { ok, status, text } = await this.#call(url, { method: 'GET' }, options.signal);
    if (!ok) throw new PolicyUnavailableError({ url, detail: `HTTP ${status}${text ? `: ${text.slice(0, 300)}` : ''}` });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (cause) {
      throw new PolicyUnavailableError({ url, detail: 'the answer is not JSON', cause });
    }
    const result = (body as { result?: unknown } | null)?.result;
    if (!Array.isArray(result) || !result.every((m) => typeof m?.id === 'string' && typeof m?.raw === 'string')) {
      throw new PolicyUnavailableError({ url, detail: 'the answer is not a list of {id, raw} policies' });
    }
    return (result as { id: string; raw: string }[]).map(({ id, raw }) => ({ id, raw }));
  }

  async healthy(options: { signal?: AbortSignal } = {}): Promise<boolean> {
    try {
      return (await this.#call(`${this.url}/health`, { method: 'GET' }, options.signal)).ok;
    } catch {
      return false;
    }
  }

  async #call(url: string, init: Omit<JsonCallInit, 'signal' | 'timeoutMs'>, signal: AbortSignal | undefined): Promise<JsonCallAnswer> {
    try {
      return await jsonCall(url, { ...init, signal, timeoutMs: this.#timeoutMs });
    } catch (cause) {
      throw new PolicyUnavailableError({ url, detail: callFailureDetail(cause), cause });
    }
  }
}
