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
}
