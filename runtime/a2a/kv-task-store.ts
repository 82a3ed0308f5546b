import { Task, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import { resolveUserScope, type ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import type { Redis } from 'ioredis';
import { CONFIG_DEFAULTS } from '../core/config.js';
import { isPlainObject, parseJsonOrUndefined } from '../core/json.js';
import { closeKvClient, kvCall } from '../core/kv-client.js';
import { checkTtlSeconds } from '../sessions/ttl-seconds.js';
import { listTaskPage } from './task-list-page.js';

export interface KvTaskStoreOptions {
  /** The Redis client (see `createKvClient`). */
  client: Redis;
  /** Redacted address of the client, for `StoreUnavailableError` messages. */
  location: string;
  /** Prefix of every key the store writes, such as `fw:`. */
  keyPrefix: string;
  /** Lifetime of a task after its last save; default 3600 (`SESSION_TTL`'s default). */
  ttlSeconds?: number;
  /** Whether `close()` closes the client; default `false` (the caller keeps it). */
  ownsClient?: boolean;
}

/**
 * An A2A `TaskStore` in Redis, so tasks survive a restart and are shared by
 * replicas that use the same Redis and key prefix. Same semantics as the SDK's
 * `InMemoryTaskStore`: tasks are scoped by tenant (`context.tenant`) and owner
 * (`resolveUserScope(context)`), so a caller never sees another's tasks, and
 * `list` filters, sorts and pages the same way (see `listTaskPage`).
 *
 * Layout: `<prefix>a2a:task:<tenant>:<owner>:<taskId>` holds `Task.toJSON(task)`
 * as JSON and `<prefix>a2a:tasks:<tenant>:<owner>` is a sorted set of task ids
 * scored by save time (ms); tenant and owner are URI-encoded, so a `:` in them
 * cannot make two scopes share keys. Both keys expire `ttlSeconds` after the
 * last save; ids whose task has expired are skipped by `list` and pruned from
 * the set on the next save.
 *
 * Every call rejects with `StoreUnavailableError` while Redis is unreachable.
 *
 * @example
 * const store = new KvTaskStore({ client: createKvClient({ url }), location: redactUrl(url), keyPrefix: 'fw:', ownsClient: true });
 * const handler = new DefaultRequestHandler(agentCard, store, executor);
 * // ...
 * await store.close();
 */
export class KvTaskStore implements TaskStore {
  readonly location: string;
  readonly ttlSeconds: number;

  readonly #client: Redis;
  readonly #ownsClient: boolean;
  readonly #prefix: string;

  constructor(options: KvTaskStoreOptions) {
    this.ttlSeconds = checkTtlSeconds(options.ttlSeconds ?? CONFIG_DEFAULTS.sessionTtlSeconds);
    this.location = options.location;
    this.#client = options.client;
    this.#ownsClient = options.ownsClient ?? false;
    this.#prefix = options.keyPrefix;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    // Encoded before any call, so a task JSON cannot encode throws its own error, not a store error.
    const json = JSON.stringify(Task.toJSON(task));
    const taskKey = this.#taskKey(context, task.id);
    const indexKey = this.#indexKey(context);
    const now = Date.now();
    await this.#call(async (client) => {
      const replies = await client
        .multi()
        .set(taskKey, json, 'EX', this.ttlSeconds)
        .zadd(indexKey, now, task.id)
        // An id not saved for a whole TTL has expired: keeps the set as small as the live tasks.
        .zremrangebyscore(indexKey, '-inf', `(${now - this.ttlSeconds * 1000}`)
        .expire(indexKey, this.ttlSeconds)
        .exec();
      throwFirstError(replies);
    });
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const taskKey = this.#taskKey(context, taskId);
    const raw = await this.#call((client) => client.get(taskKey));
    return raw === null ? undefined : decodeTask(raw, taskId);
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const indexKey = this.#indexKey(context);
    const ids = await this.#call((client) => client.zrange(indexKey, 0, -1));
    const raws = ids.length === 0 ? [] : await this.#call((client) => client.mget(ids.map((id) => this.#taskKey(context, id))));
    const tasks: Task[] = [];
    raws.forEach((raw, index) => {
      // null: the task expired after the set was last pruned.
      const task = raw === null ? undefined : decodeTask(raw, ids[index] ?? '');
      if (task !== undefined) tasks.push(task);
    });
    return listTaskPage({ tasks, params });
  }

  /** The Redis client, for stores that keep their data beside the tasks (push-notification configs). */
  get client(): Redis {
    return this.#client;
  }

  /** Closes the client when the store owns it. */
  async close(): Promise<void> {
    if (this.#ownsClient) await closeKvClient(this.#client);
  }

  #taskKey(context: ServerCallContext, taskId: string): string {
    return `${this.#prefix}a2a:task:${scope(context)}:${taskId}`;
  }

  #indexKey(context: ServerCallContext): string {
    return `${this.#prefix}a2a:tasks:${scope(context)}`;
  }

  #call<T>(call: (client: Redis) => Promise<T>): Promise<T> {
    return kvCall(this.location, this.#client, call);
  }
}

/** `<tenant>:<owner>`, each URI-encoded so neither can contain the separator. */
function scope(context: ServerCallContext): string {
  return `${encodeURIComponent(context.tenant ?? '')}:${encodeURIComponent(resolveUserScope(context))}`;
}

/** A stored task, or `undefined` when the value is corrupt or belongs to another id. */
function decodeTask(raw: string, taskId: string): Task | undefined {
  const value = parseJsonOrUndefined(raw);
  if (!isPlainObject(value)) return undefined;
  try {
    const task = Task.fromJSON(value);
    return task.id === taskId ? task : undefined;
  } catch {
    return undefined;
  }
}

function throwFirstError(replies: Array<[error: Error | null, result: unknown]> | null): void {
  if (replies === null) throw new Error('The Redis transaction was aborted.');
  for (const [error] of replies) if (error) throw error;
}
