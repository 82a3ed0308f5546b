import { z } from 'zod';
import { policyAnswerError, PolicyUnavailableError } from './errors/policy-unavailable-error.js';
import { decideAccess, type AccessDecision } from './access-decision.js';
import { DEFAULT_POLICY_TIMEOUT_MS, OpaPolicyClient } from './policy-client.js';
import type { A2AValidationInput } from './validation-input.js';
import { callFailureDetail, jsonCall, type JsonCallAnswer } from './http-fetch.js';

/** Something that decides one agent-to-agent call: the Guardian, or the policy engine directly. */
export interface AccessChecker {
  /** Address asked, for messages. */
  readonly url: string;
  /** Kind of service asked, for messages. */
  readonly kind: 'guardian' | 'policy engine' | 'policy bundle';
  /** Resolves to the decision; rejects with `PolicyUnavailableError` when none could be had. */
  check(input: A2AValidationInput, options?: { signal?: AbortSignal }): Promise<AccessDecision>;
}

const GuardianAnswerSchema = z.object({ allowed: z.boolean(), reason: z.string() });

/** Asks the Guardian's `POST /v1/a2a/validate`. */
export class GuardianAccessChecker implements AccessChecker {
  readonly kind = 'guardian';
  readonly url: string;
  readonly #timeoutMs: number;

  constructor(options: { url: string; timeoutMs?: number }) {
    this.url = options.url.replace(/\/+$/, '');
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_POLICY_TIMEOUT_MS;
  }

  async check(input: A2AValidationInput, options: { signal?: AbortSignal } = {}): Promise<AccessDecision> {
    const url = `${this.url}/v1/a2a/validate`;
    let answer: JsonCallAnswer;
    try {
      answer = await jsonCall(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(input),
        signal: options.signal,
        timeoutMs: this.#timeoutMs,
      });
    } catch (cause) {
      throw new PolicyUnavailableError({ url, detail: callFailureDetail(cause), cause });
    }
    const { text } = answer;
    if (!answer.ok) throw policyAnswerError(url, answer.status, text);
    let parsed;
    try {
      parsed = GuardianAnswerSchema.safeParse(JSON.parse(text));
    } catch (cause) {
      throw new PolicyUnavailableError({ url, detail: 'the answer is not JSON', cause });
    }
    if (!parsed.success) throw new PolicyUnavailableError({ url, detail: 'the answer is not {allowed, reason}' });
    return parsed.data;
  }
}

/** Asks the policy engine (OPA REST API) for the `a2a_access` document directly. */
export class OpaAccessChecker implements AccessChecker {
  readonly kind = 'policy engine';
  readonly url: string;
  readonly #client: OpaPolicyClient;

  constructor(options: { url: string; timeoutMs?: number }) {
    this.#client = new OpaPolicyClient(options);
    this.url = this.#client.url;
  }

  check(input: A2AValidationInput, options: { signal?: AbortSignal } = {}): Promise<AccessDecision> {
    return decideAccess(this.#client, input, options);
  }
}
