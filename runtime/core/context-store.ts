/**
 * Per-conversation context, keyed by `contextId`. The session stores
 * implement it; `FrameworkCore` needs only this much of them.
 */
export interface ContextStore {
  /** The context of a conversation; `{}` when nothing was stored yet. */
  getContext(contextId: string): Promise<Record<string, unknown>>;
  /**
   * Merges `patch` into the context, key by key, atomically: two concurrent
   * updates of different keys both survive. A key whose value is `undefined`
   * is removed. Resolves to the merged context.
   */
  updateContext(contextId: string, patch: Readonly<Record<string, unknown>>): Promise<Record<string, unknown>>;
  /**
   * Removes `key` from the context when it still holds `expected` (compared
   * as JSON, the stored form), atomically: of several callers claiming the
   * same value at once, on one process or several replicas, exactly one gets
   * `true`. For one-time decisions such as approving a plan.
   */
  claimContextValue(contextId: string, key: string, expected: unknown): Promise<boolean>;
}

/**
 * Session context kept in this process only, without expiry: what a
 * `FrameworkCore` uses until it is given a store (`runAgent` gives it the
 * one SESSION_BACKEND selects). Lost on restart; not shared between replicas.
 */
export class InProcessContextStore implements ContextStore {
  readonly #contexts = new Map<string, Record<string, unknown>>();

  async getContext(contextId: string): Promise<Record<string, unknown>> {
    return structuredClone(this.#contexts.get(contextId) ?? {});
  }

  async updateContext(contextId: string, patch: Readonly<Record<string, unknown>>): Promise<Record<string, unknown>> {
    const merged: Record<string, unknown> = { ...this.#contexts.get(contextId) };
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) delete merged[key];
      else merged[key] = structuredClone(value);
    }
    this.#contexts.set(contextId, merged);
    return structuredClone(merged);
  }

  async claimContextValue(contextId: string, key: string, expected: unknown): Promise<boolean> {
    const context = this.#contexts.get(contextId);
    if (!context || !Object.hasOwn(context, key) || JSON.stringify(context[key]) !== JSON.stringify(expected)) return false;
    delete context[key];
    return true;
  }
}
