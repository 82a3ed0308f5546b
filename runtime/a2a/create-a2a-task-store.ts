import { InMemoryPushNotificationStore, type PushNotificationStore, type TaskStore } from '@a2a-js/sdk/server';
import { ConfigError } from '../core/errors/config-error.js';
import { createKvClient, redactUrl } from '../core/kv-client.js';
import { checkTtlSeconds } from '../sessions/ttl-seconds.js';
import { KvTaskStore } from './kv-task-store.js';
import { MemoryTaskStore } from './memory-task-store.js';
import { KvPushNotificationStore } from './push/kv-push-notification-store.js';

/** A task store the caller closes when the agent stops. */
export type ClosableTaskStore = TaskStore & { close(): Promise<void> };

export interface A2ATaskStoreConfig {
  sessionBackend: 'memory' | 'kv';
  /** Redis URL; required for `kv`. */
  sessionKvUrl?: string;
  kvKeyPrefix: string;
  /** Lifetime of a task after its last save, in either backend. */
  sessionTtlSeconds: number;
}

/**
 * The A2A task store the session configuration asks for: a `MemoryTaskStore`
 * for `memory` (this process only, tasks kept for `sessionTtlSeconds` after
 * their last save, 10,000 at most) or a `KvTaskStore` for `kv` (Redis at `sessionKvUrl`, shared by replicas,
 * with its own client that `close()` closes). Throws `ConfigError` when `kv`
 * is chosen without a URL.
 *
 * @example
 * const tasks = createA2ATaskStore(loadAgentConfig());
 * const handler = new DefaultRequestHandler(agentCard, tasks, executor);
 * // ... on shutdown:
 * await tasks.close();
 */
export function createA2ATaskStore(config: A2ATaskStoreConfig): ClosableTaskStore {
  // Checked before a client exists, so a bad TTL leaks no connection.
  const ttlSeconds = checkTtlSeconds(config.sessionTtlSeconds);
  if (config.sessionBackend === 'memory') return new MemoryTaskStore({ ttlSeconds });
  if (config.sessionKvUrl === undefined) {
    throw new ConfigError({
      issues: [{ variable: 'SESSION_KV_URL', message: 'is required when SESSION_BACKEND=kv (or set KV_URL)' }],
    });
  }
  return new KvTaskStore({
    client: createKvClient({ url: config.sessionKvUrl }),
    location: redactUrl(config.sessionKvUrl),
    keyPrefix: config.kvKeyPrefix,
    ttlSeconds,
    ownsClient: true,
  });
}

/**
 * The task store of `createA2ATaskStore` and, beside it in the same backend,
 * the push-notification config store: the SDK's in-memory store for
 * `memory`, a `KvPushNotificationStore` on the task store's Redis client for
 * `kv` (configs expire with their tasks). `tasks.close()` closes both.
 */
export function createA2AStores(config: A2ATaskStoreConfig): { tasks: ClosableTaskStore; pushConfigs: PushNotificationStore } {
  const tasks = createA2ATaskStore(config);
  if (!(tasks instanceof KvTaskStore)) return { tasks, pushConfigs: new InMemoryPushNotificationStore() };
  return {
    tasks,
    pushConfigs: new KvPushNotificationStore({ client: tasks.client, location: tasks.location, keyPrefix: config.kvKeyPrefix, ttlSeconds: tasks.ttlSeconds }),
  };
}
