import { setTimeout as sleep } from 'node:timers/promises';
import type { StreamResponse, Task, TaskPushNotificationConfig } from '@a2a-js/sdk';
import { V03PushNotificationSerializer } from '@a2a-js/sdk/compat/v0_3/server';
import {
  V1PushNotificationSerializer,
  type PushNotificationSender,
  type PushNotificationSerializer,
  type PushNotificationStore,
  type ServerCallContext,
  type StoredPushNotificationConfig,
} from '@a2a-js/sdk/server';
import { silentLogger, type Logger } from '../../core/logger.js';
import type { WebhookPolicy } from './webhook-policy.js';
import { NOTIFICATION_SIGNATURE_HEADER, type WebhookSigner } from './webhook-signer.js';

/** The header the config's `token` is sent in (the A2A spec's and the SDK's name). */
export const NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';

export interface WebhookPushSenderOptions {
  store: PushNotificationStore;
  policy: WebhookPolicy;
  logger?: Logger;
  /** Retries after the first attempt, on a network error, a timeout, 429 or 5xx; default 3. */
  retries?: number;
  /** First back-off delay, doubled on each retry (with jitter) up to `maxDelayMs`; default 250 ms. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Per-attempt timeout; default 5000 ms. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Signs each POST (a JWT per attempt) when the agent has a push signing key (A2A_PUSH_SIGNING_KEY_FILE). */
  signer?: WebhookSigner;
  /** The agent's A2A URL, read at each POST (the JWT's `iss`; the URL is fixed once the agent listens). */
  issuer?: () => string;
}

/** Why one delivery attempt failed, and whether trying again may help. */
class AttemptError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/**
 * Delivers push notifications the way the SDK's `DefaultPushNotificationSender`
 * does (same serializers per wire version: v1.0 `StreamResponse` JSON as
 * `application/a2a+json`, v0.3 JSON-RPC-shaped for configs registered over
 * v0.3; same auth: `Authorization: <scheme> <credentials>` from the config's
 * `authentication`, its `token` in `X-A2A-Notification-Token`; events of a
 * task delivered in order), plus what it lacks: the webhook policy checked
 * again before each POST, retries with exponential back-off and jitter on
 * network errors, timeouts, 429 and 5xx (not on other 4xx: the receiver
 * refused), our logger instead of the console, and `close()` that stops
 * pending retries. With a `signer`, every attempt also carries a fresh JWT
 * over the body in `X-A2A-Notification-Signature` (and as the bearer token
 * when the config asks for `Bearer` without credentials of its own).
 * Never throws: a failed delivery is logged.
 */
export class WebhookPushSender implements PushNotificationSender {
  readonly #options: WebhookPushSenderOptions;
  readonly #logger: Logger;
  readonly #serializers = new Map<string, PushNotificationSerializer>([
    ['1.0', new V1PushNotificationSerializer()],
    ['0.3', new V03PushNotificationSerializer()],
  ]);
  readonly #chains = new Map<string, Promise<void>>();
  readonly #closed = new AbortController();

  constructor(options: WebhookPushSenderOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
  }

  async send(event: StreamResponse, context: ServerCallContext, task?: Task): Promise<void> {
    const taskId = taskIdOf(event);
    if (!taskId || this.#closed.signal.aborted) return;
    const store = this.#options.store;
    const configs = store.loadWithMetadata
      ? await store.loadWithMetadata(taskId, context)
      : (await store.load(taskId, context)).map((config) => ({ config, wireVersion: context.requestedVersion }));
    if (configs.length === 0) return;
    const previous = this.#chains.get(taskId) ?? Promise.resolve();
    const next = previous.then(() => Promise.all(configs.map((stored) => this.#deliver(event, stored, taskId, task))).then(() => undefined));
    this.#chains.set(taskId, next);
    await next;
    if (this.#chains.get(taskId) === next) this.#chains.delete(taskId);
  }

  /** Stops retries in progress and refuses new deliveries. */
  close(): void {
    this.#closed.abort();
  }

  async #deliver(event: StreamResponse, stored: StoredPushNotificationConfig, taskId: string, task: Task | undefined): Promise<void> {
    const { config } = stored;
    try {
      this.#options.policy.check(config.url);
    } catch (error) {
      this.#logger.warn('push notification not sent: webhook URL not allowed', { taskId, url: config.url, error: (error as Error).message });
      return;
    }
    const serializer = this.#serializers.get(stored.wireVersion) ?? this.#serializers.get('1.0')!;
    const { body, contentType } = serializer.serialize(event, task);
    const headers = { 'Content-Type': contentType, ...authHeaders(config) };
    const retries = this.#options.retries ?? 3;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.#post(config.url, await this.#signed(headers, config, taskId, body), body);
        this.#logger.debug('push notification sent', { taskId, url: config.url, attempt: attempt + 1 });
        return;
      } catch (error) {
        const failure = error instanceof AttemptError ? error : new AttemptError(String(error), true);
        if (!failure.retryable || attempt >= retries || this.#closed.signal.aborted) {
          this.#logger.warn('push notification not delivered', { taskId, url: config.url, attempts: attempt + 1, error: failure.message });
          return;
        }
        const base = this.#options.baseDelayMs ?? 250;
        const delay = Math.min(this.#options.maxDelayMs ?? 5_000, base * 2 ** attempt) * (0.5 + Math.random() / 2);
        try {
          await sleep(delay, undefined, { signal: this.#closed.signal, ref: false });
        } catch {
          return;
        }
      }
    }
  }

  /** `headers` plus a fresh JWT for this attempt, when the agent signs its webhooks. */
  async #signed(headers: Record<string, string>, config: TaskPushNotificationConfig, taskId: string, body: string): Promise<Record<string, string>> {
    const signer = this.#options.signer;
    if (!signer) return headers;
    let jwt: string;
    try {
      jwt = await signer.sign({ issuer: this.#options.issuer?.() ?? '', webhookUrl: config.url, taskId, body });
    } catch (error) {
      throw new AttemptError(`signing failed: ${(error as Error).message}`, false);
    }
    const signed: Record<string, string> = { ...headers, [NOTIFICATION_SIGNATURE_HEADER]: jwt };
    // The spec's JWT flow: a config that asks for a bearer token without giving one gets the agent's JWT.
    if (config.authentication?.scheme.toLowerCase() === 'bearer' && !config.authentication.credentials) signed.Authorization = `Bearer ${jwt}`;
    return signed;
  }

  async #post(url: string, headers: Record<string, string>, body: string): Promise<void> {
    const doFetch = this.#options.fetch ?? fetch;
    let response: Response;
    try {
      response = await doFetch(url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(this.#options.timeoutMs ?? 5_000), this.#closed.signal]),
      });
    } catch (error) {
      throw new AttemptError(error instanceof Error ? `${error.name}: ${error.message}` : String(error), true);
    }
    await response.body?.cancel().catch(() => {});
    if (response.ok) return;
    // A redirect is not followed: it could lead to a host the policy does not allow.
    throw new AttemptError(`HTTP ${response.status}`, response.status === 429 || response.status >= 500);
  }
}

function authHeaders(config: TaskPushNotificationConfig): Record<string, string> {
  const headers: Record<string, string> = {};
  if (config.authentication?.scheme && config.authentication.credentials)
    headers.Authorization = `${config.authentication.scheme} ${config.authentication.credentials}`;
  if (config.token) headers[NOTIFICATION_TOKEN_HEADER] = config.token;
  return headers;
}

function taskIdOf(event: StreamResponse): string {
  const payload = event.payload;
  switch (payload?.$case) {
    case 'task':
      return payload.value.id;
    case 'statusUpdate':
    case 'artifactUpdate':
    case 'message':
      return payload.value.taskId;
    default:
      return '';
  }
}
