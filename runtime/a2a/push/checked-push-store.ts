import type { TaskPushNotificationConfig } from '@a2a-js/sdk';
import type { PushNotificationStore, ServerCallContext, StoredPushNotificationConfig } from '@a2a-js/sdk/server';
import type { WebhookPolicy } from './webhook-policy.js';

/**
 * A push-notification store that refuses, at registration, a config whose
 * URL the webhook policy does not allow, so the caller gets a clear error
 * (invalid params / 400) instead of notifications silently never sent.
 * Every other call goes to `inner`.
 */
export class CheckedPushNotificationStore implements PushNotificationStore {
  readonly #inner: PushNotificationStore;
  readonly #policy: WebhookPolicy;

  constructor(options: { inner: PushNotificationStore; policy: WebhookPolicy }) {
    this.#inner = options.inner;
    this.#policy = options.policy;
  }

  /** The configs with the wire version each was registered over (the inner store's, else the request's). */
  async loadWithMetadata(taskId: string, context: ServerCallContext): Promise<StoredPushNotificationConfig[]> {
    if (this.#inner.loadWithMetadata) return this.#inner.loadWithMetadata(taskId, context);
    const wireVersion = context.requestedVersion;
    return (await this.#inner.load(taskId, context)).map((config) => ({ config, wireVersion }));
  }

  async save(taskId: string, context: ServerCallContext, config: TaskPushNotificationConfig): Promise<void> {
    this.#policy.check(config.url);
    await this.#inner.save(taskId, context, config);
  }

  load(taskId: string, context: ServerCallContext): Promise<TaskPushNotificationConfig[]> {
    return this.#inner.load(taskId, context);
  }

  delete(taskId: string, context: ServerCallContext, configId?: string): Promise<void> {
    return this.#inner.delete(taskId, context, configId);
  }
}
