import { randomUUID } from 'node:crypto';
import { TaskPushNotificationConfig } from '@a2a-js/sdk';
import { resolveUserScope, type PushNotificationStore, type ServerCallContext, type StoredPushNotificationConfig } from '@a2a-js/sdk/server';
import type { Redis } from 'ioredis';
import { kvCall } from '../../core/kv-client.js';
import { checkTtlSeconds } from '../../sessions/ttl-seconds.js';

export interface KvPushNotificationStoreOptions {
  client: Redis;
  /** Redacted address of the client, for `StoreUnavailableError` messages. */
  location: string;
  keyPrefix: string;
  /** Lifetime of a task's configs after the last save; the task store's TTL, so configs never outlive their task. */
  ttlSeconds: number;
}

/**
 * Push-notification configs in Redis, beside the tasks of `KvTaskStore`, so
 * a config set on one replica is used by the replica that runs the task.
 * Same semantics as the SDK's `InMemoryPushNotificationStore`: scoped by
 * tenant and owner, an empty config id becomes a random UUID (in place),
 * saving an existing id replaces it, each config keeps the wire version it
 * was registered over. Layout: one hash per task,
 * `<prefix>a2a:push:<tenant>:<owner>:<taskId>`, field = config id, value =
 * `{ config, wireVersion, savedAt }` JSON; it expires `ttlSeconds` after the
 * last save. The closing of the client belongs to the task store.
 */
export class KvPushNotificationStore implements PushNotificationStore {
  readonly #client: Redis;
  readonly #location: string;
  readonly #prefix: string;
  readonly #ttlSeconds: number;

  constructor(options: KvPushNotificationStoreOptions) {
    this.#client = options.client;
    this.#location = options.location;
    this.#prefix = options.keyPrefix;
    this.#ttlSeconds = checkTtlSeconds(options.ttlSeconds);
  }

  async save(taskId: string, context: ServerCallContext, config: TaskPushNotificationConfig): Promise<void> {
    if (!config.id) config.id = randomUUID();
    const value = JSON.stringify({ config: TaskPushNotificationConfig.toJSON(config), wireVersion: context.requestedVersion, savedAt: Date.now() });
    const key = this.#key(taskId, context);
    await kvCall(this.#location, this.#client, async (client) => {
      const replies = await client.multi().hset(key, config.id, value).expire(key, this.#ttlSeconds).exec();
      for (const [error] of replies ?? []) if (error) throw error;
    });
  }

  async load(taskId: string, context: ServerCallContext): Promise<TaskPushNotificationConfig[]> {
    return (await this.loadWithMetadata(taskId, context)).map((stored) => stored.config);
  }

  async loadWithMetadata(taskId: string, context: ServerCallContext): Promise<StoredPushNotificationConfig[]> {
    const key = this.#key(taskId, context);
    const raw = await kvCall(this.#location, this.#client, (client) => client.hgetall(key));
    const entries: Array<StoredPushNotificationConfig & { savedAt: number }> = [];
    for (const text of Object.values(raw)) {
      const entry = decode(text);
      if (entry) entries.push(entry);
    }
    return entries.sort((a, b) => a.savedAt - b.savedAt).map(({ config, wireVersion }) => ({ config, wireVersion }));
  }

  /** Deletes config `configId` (the SDK's rule: without one, the config whose id is the task id). */
  async delete(taskId: string, context: ServerCallContext, configId?: string): Promise<void> {
    const key = this.#key(taskId, context);
    await kvCall(this.#location, this.#client, (client) => client.hdel(key, configId ?? taskId));
  }

  #key(taskId: string, context: ServerCallContext): string {
    return `${this.#prefix}a2a:push:${encodeURIComponent(context.tenant ?? '')}:${encodeURIComponent(resolveUserScope(context))}:${taskId}`;
  }
}

/** A stored entry, or `undefined` when the value is corrupt. */
function decode(text: string): (StoredPushNotificationConfig & { savedAt: number }) | undefined {
  try {
    const value = JSON.parse(text) as { config?: unknown; wireVersion?: unknown; savedAt?: unknown };
    if (typeof value.wireVersion !== 'string' || typeof value.savedAt !== 'number') return undefined;
    return { config: TaskPushNotificationConfig.fromJSON(value.config), wireVersion: value.wireVersion, savedAt: value.savedAt };
  } catch {
    return undefined;
  }
}
