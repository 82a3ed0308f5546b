import { z } from 'zod';
import { parseJsonOrUndefined } from '../core/json.js';
import type { MemoryAccess } from './memory-edits.js';
import type { MemoryStore } from './memory-store.js';

/**
 * AMS's client-visible background tasks (`GET /v1/tasks/{id}`, tasks.py):
 * kept in Redis as JSON for 7 days, `pending` → `running` → `success` or
 * `failed`. Here a task runs in the process that accepted it (AMS: a
 * Docket worker); one that this process was running when it stopped stays
 * `running` in Redis.
 *
 * In token mode a task is its creator's: kept under its owner (another
 * token's task of the same id is another document, never replaced) and
 * answered only to the same token (404 to any other).
 */

export const TaskSchema = z.object({
  id: z.string(),
  type: z.literal('summary_view_full_run'),
  status: z.enum(['pending', 'running', 'success', 'failed']),
  view_id: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  error_message: z.string().nullable(),
});
export type Task = z.infer<typeof TaskSchema>;

/** A task as stored: with its owner (token mode), which the API never answers. */
const StoredTaskSchema = TaskSchema.extend({ owner: z.string().optional() });
type StoredTask = z.infer<typeof StoredTaskSchema>;

/** The document id of a task: its own id, or under its owner's mark in token mode (an owner's ids never meet another's). */
const documentId = (id: string, owner: string | undefined) => (owner === undefined ? id : `@${owner}/${id}`);

/** AMS's `_TASK_TTL_SECONDS`. */
const TASK_TTL_SECONDS = 7 * 24 * 60 * 60;

/** Tasks of one store. */
export class MemoryTasks {
  readonly #store: MemoryStore;
  readonly #now: () => Date;

  constructor(options: { store: MemoryStore; now: () => Date }) {
    this.#store = options.store;
    this.#now = options.now;
  }

  /** The task `id` of the caller (`access.owner` in token mode); undefined when there is none or it is another's. */
  async get(id: string, access: MemoryAccess = {}): Promise<Task | undefined> {
    const json = await this.#store.getDocument('task', documentId(id, access.owner));
    if (json === undefined) return undefined;
    const parsed = StoredTaskSchema.safeParse(parseJsonOrUndefined(json));
    if (!parsed.success || parsed.data.owner !== access.owner) return undefined;
    const { owner: _owner, ...task } = parsed.data;
    return task;
  }

  /** Records a new pending task of `owner` (replacing the owner's own task with the same id, as AMS). */
  async create(options: { id: string; viewId: string; owner?: string | undefined }): Promise<StoredTask> {
    const task: StoredTask = {
      id: options.id,
      type: 'summary_view_full_run',
      status: 'pending',
      view_id: options.viewId,
      created_at: this.#now().toISOString(),
      started_at: null,
      completed_at: null,
      error_message: null,
      ...(options.owner === undefined ? {} : { owner: options.owner }),
    };
    await this.#save(task);
    return task;
  }

  /**
   * Runs `work` for the task: `running` while it runs, then `success`, or
   * `failed` with the error's message. Never rejects (a failure is the task's).
   */
  async run(task: StoredTask, work: () => Promise<void>): Promise<void> {
    let current: StoredTask = { ...task, status: 'running', started_at: this.#now().toISOString() };
    try {
      await this.#save(current);
      await work();
      current = { ...current, status: 'success', completed_at: this.#now().toISOString() };
    } catch (error) {
      current = {
        ...current,
        status: 'failed',
        completed_at: this.#now().toISOString(),
        error_message: error instanceof Error ? error.message : String(error),
      };
    }
    await this.#save(current).catch(() => undefined);
  }

  #save(task: StoredTask): Promise<void> {
    return this.#store.putDocument({ kind: 'task', id: documentId(task.id, task.owner), json: JSON.stringify(task), ttlSeconds: TASK_TTL_SECONDS });
  }
}
