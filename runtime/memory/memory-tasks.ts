import { z } from 'zod';
import { parseJsonOrUndefined } from '../core/json.js';
import type { MemoryStore } from './memory-store.js';

/**
 * AMS's client-visible background tasks (`GET /v1/tasks/{id}`, tasks.py):
 * kept in Redis as JSON for 7 days, `pending` → `running` → `success` or
 * `failed`. Here a task runs in the process that accepted it (AMS: a
 * Docket worker); one that this process was running when it stopped stays
 * `running` in Redis.
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

  async get(id: string): Promise<Task | undefined> {
    const json = await this.#store.getDocument('task', id);
    if (json === undefined) return undefined;
    const parsed = TaskSchema.safeParse(parseJsonOrUndefined(json));
    return parsed.success ? parsed.data : undefined;
  }

  /** Records a new pending task (replacing one with the same id, as AMS). */
  async create(options: { id: string; viewId: string }): Promise<Task> {
    const task: Task = {
      id: options.id,
      type: 'summary_view_full_run',
      status: 'pending',
      view_id: options.viewId,
      created_at: this.#now().toISOString(),
      started_at: null,
      completed_at: null,
      error_message: null,
    };
    await this.#save(task);
    return task;
  }

  /**
   * Runs `work` for the task: `running` while it runs, then `success`, or
   * `failed` with the error's message. Never rejects (a failure is the task's).
   */
  async run(task: Task, work: () => Promise<void>): Promise<void> {
    let current: Task = { ...task, status: 'running', started_at: this.#now().toISOString() };
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

  #save(task: Task): Promise<void> {
    return this.#store.putDocument({ kind: 'task', id: task.id, json: JSON.stringify(task), ttlSeconds: TASK_TTL_SECONDS });
  }
}
