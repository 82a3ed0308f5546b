/**
 * Session-context keys whose value is a wait for a person's decision, by the
 * `kind` label of `approvals_pending`: a tool call the gate paused
 * (`pending_tool_approval`) and a plan waiting for confirmation
 * (`pending_plan`). Strings, not imports: sessions sit below tools and planning.
 */
export const WAITING_CONTEXT_KEYS: Readonly<Record<string, 'tool_call' | 'plan'>> = {
  pending_tool_approval: 'tool_call',
  pending_plan: 'plan',
};

/** The kinds of wait, in a fixed order (every one gets a sample, zero included). */
export const WAIT_KINDS = ['tool_call', 'plan'] as const;
export type WaitKind = (typeof WAIT_KINDS)[number];

/** The kind of wait a context key holds, or undefined for any other key. */
export function waitKindOf(key: string): WaitKind | undefined {
  return Object.hasOwn(WAITING_CONTEXT_KEYS, key) ? WAITING_CONTEXT_KEYS[key] : undefined;
}

/**
 * When a wait stored as `json` stops counting as pending: its own
 * `expires_at` (ISO-8601) when it has one and it is earlier, otherwise when
 * its conversation's context expires (`contextExpiresAt`, ms since the epoch).
 */
export function waitEndsAt(json: string, contextExpiresAt: number): number {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return contextExpiresAt;
  }
  const expires = typeof value === 'object' && value !== null ? (value as { expires_at?: unknown }).expires_at : undefined;
  const own = typeof expires === 'string' ? Date.parse(expires) : Number.NaN;
  return Number.isNaN(own) ? contextExpiresAt : Math.min(own, contextExpiresAt);
}
