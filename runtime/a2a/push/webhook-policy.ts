import { RequestMalformedError } from '@a2a-js/sdk/errors';

/**
 * Which webhook URLs an agent may POST push notifications to: a push config
 * comes from a remote caller, so without a limit it would make the agent
 * send requests to any host it can reach (SSRF: its own admin ports, Redis,
 * cloud metadata). Only `http:`/`https:` URLs without credentials whose
 * host (or `host:port`) is listed in A2A_PUSH_ALLOWED_HOSTS pass; `*` allows
 * every host (development only). With an empty list every webhook is refused.
 */
export class WebhookPolicy {
  readonly #allowed: ReadonlySet<string>;

  constructor(options: { allowedHosts: readonly string[] }) {
    this.#allowed = new Set(options.allowedHosts.map((host) => host.toLowerCase()));
  }

  /** Whether any webhook can pass (the card declares push notifications only then). */
  get allowsAny(): boolean {
    return this.#allowed.size > 0;
  }

  /** Throws `RequestMalformedError` (invalid params / 400) naming why `url` may not be a webhook. */
  check(url: string): void {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new RequestMalformedError(`Push notification URL "${url}" is not an absolute URL.`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new RequestMalformedError(`Push notification URL must be http or https (got ${parsed.protocol}).`);
    if (parsed.username !== '' || parsed.password !== '')
      throw new RequestMalformedError('Push notification URL must not carry credentials; use the config authentication field.');
    const host = parsed.hostname.toLowerCase();
    const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
    if (this.#allowed.has('*') || this.#allowed.has(host) || this.#allowed.has(`${host}:${port}`)) return;
    throw new RequestMalformedError(
      `Push notifications to ${host}:${port} are not allowed by this agent (A2A_PUSH_ALLOWED_HOSTS lists the hosts a webhook may target).`,
    );
  }
}
