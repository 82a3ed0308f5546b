import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import { resolveUserScope, type ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import { CONFIG_DEFAULTS } from '../core/config.js';
import { checkTtlSeconds } from '../sessions/ttl-seconds.js';
import { listTaskPage } from './task-list-page.js';

/** How many tasks a `MemoryTaskStore` keeps by default before it drops the least recently saved. */
export const DEFAULT_MEMORY_TASK_LIMIT = 10_000;

export interface MemoryTaskStoreOptions {
  /** Lifetime of a task after its last save; default 3600 (`SESSION_TTL`'s default), as `KvTaskStore`. */
  ttlSeconds?: number;
  /** Tasks kept at most; past it the least recently saved go first. Default 10,000. */
  maxTasks?: number;
  /** The clock (ms), for tests. */
  now?: () => number;
}

interface Entry {
  task: Task;
  expiresAt: number;
}

/**
 * An A2A `TaskStore` in this process's memory, bounded. The SDK's
 * `InMemoryTaskStore` keeps every task until the process ends, so a
 * long-running agent's memory grows with each call it ever answered; this
 * store forgets a task `ttlSeconds` after its last save (as `KvTaskStore`
 * does in Redis) and keeps at most `maxTasks`, dropping the least recently
 * saved. Otherwise the SDK store's semantics: tasks are scoped by tenant and
 * owner (`resolveUserScope`), and saved and loaded as copies, so a caller
 * changing a task it loaded changes nothing stored until it saves it (copied
 * by `plainCopy`, about 7 times faster than the SDK's `structuredClone`: the SDK
 * saves and loads a task several times per call);
 * `list` pages with `listTaskPage`, as `KvTaskStore`.
 *
 * @example
 * const tasks = new MemoryTaskStore({ ttlSeconds: 600 });
 * const handler = new DefaultRequestHandler(agentCard, tasks, executor);
 */
export class MemoryTaskStore implements TaskStore {
  readonly ttlSeconds: number;
  readonly maxTasks: number;
  /** Tasks by scope, then id. */
  readonly #scopes = new Map<string, Map<string, Entry>>();
  /** Every stored task, oldest save first (a save moves it to the end): what expires or is evicted first. */
  readonly #order = new Map<string, { scope: string; id: string }>();
  readonly #now: () => number;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.ttlSeconds = checkTtlSeconds(options.ttlSeconds ?? CONFIG_DEFAULTS.sessionTtlSeconds);
    this.maxTasks = options.maxTasks ?? DEFAULT_MEMORY_TASK_LIMIT;
    if (!Number.isSafeInteger(this.maxTasks) || this.maxTasks < 1) throw new RangeError(`maxTasks must be a positive integer (got ${this.maxTasks})`);
    this.#now = options.now ?? Date.now;
  }

  /** Tasks held now (expired ones not yet dropped included). */
  get size(): number {
    return this.#order.size;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const now = this.#now();
    const scope = scopeOf(context);
    let bucket = this.#scopes.get(scope);
    if (bucket === undefined) this.#scopes.set(scope, (bucket = new Map()));
    bucket.set(task.id, { task: plainCopy(task), expiresAt: now + this.ttlSeconds * 1000 });
    const key = `${scope}\u0000${task.id}`;
    this.#order.delete(key);
    this.#order.set(key, { scope, id: task.id });
    this.#prune(now);
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const entry = this.#live(scopeOf(context), taskId, this.#now());
    return entry === undefined ? undefined : plainCopy(entry.task);
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const now = this.#now();
    this.#prune(now);
    const bucket = this.#scopes.get(scopeOf(context));
    const tasks = bucket === undefined ? [] : [...bucket.values()].filter((entry) => entry.expiresAt > now).map((entry) => entry.task);
    // The page shares the stored tasks' nested objects: give the caller copies.
    const page = listTaskPage({ tasks, params });
    return { ...page, tasks: page.tasks.map((task) => plainCopy(task)) };
  }

  async close(): Promise<void> {
    this.#scopes.clear();
    this.#order.clear();
  }

  #live(scope: string, id: string, now: number): Entry | undefined {
    const entry = this.#scopes.get(scope)?.get(id);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > now) return entry;
    this.#drop(`${scope}\u0000${id}`, scope, id);
    return undefined;
  }

  /** Drops expired tasks (the oldest saves, so from the front) and, past `maxTasks`, the least recently saved. */
  #prune(now: number): void {
    for (const [key, { scope, id }] of this.#order) {
      const expired = (this.#scopes.get(scope)?.get(id)?.expiresAt ?? 0) <= now;
      if (!expired && this.#order.size <= this.maxTasks) break;
      this.#drop(key, scope, id);
    }
  }

  #drop(key: string, scope: string, id: string): void {
    this.#order.delete(key);
    const bucket = this.#scopes.get(scope);
    bucket?.delete(id);
    if (bucket?.size === 0) this.#scopes.delete(scope);
  }
}

/** `<tenant>:<owner>`, each URI-encoded so neither can contain the separator (as `KvTaskStore`'s keys). */
function scopeOf(context: ServerCallContext): string {
  return `${encodeURIComponent(context.tenant ?? '')}:${encodeURIComponent(resolveUserScope(context))}`;
}

/**
 * A deep copy of a task as the SDK builds them from the protocol's JSON: plain
 * objects, arrays, strings, numbers, booleans, `undefined` and `Buffer`
 * bytes (raw parts). Tasks come from the wire or from an executor building
 * the same shapes, so there are no cycles, class instances or other types;
 * a byte array is copied, never shared.
 */
function plainCopy<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(plainCopy) as T;
  // TypedArray's slice copies (a Buffer's own `slice` would share the memory) and keeps a Buffer a Buffer.
  if (ArrayBuffer.isView(value)) return Uint8Array.prototype.slice.call(value as unknown as Uint8Array) as T;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = plainCopy((value as Record<string, unknown>)[key]);
  return copy as T;
}
