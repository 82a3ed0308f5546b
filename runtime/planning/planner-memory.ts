/** A finished task recalled from system memory because it resembles a new request. */
export interface PastTaskResult {
  /** What was remembered: the request, its actions and their outcomes, as text. */
  text: string;
  /** Cosine distance to the new request (0 identical, 1 unrelated). */
  distance: number;
}

/**
 * What the planner keeps in a swarm's system memory: plans waiting for the
 * user's answer (pending clarifications, in working memory) and the results
 * of finished tasks (long-term), recalled by similarity when a new request is
 * planned. Implemented over the memory service by `plannerMemory` (runtime/memory);
 * every method rejects with a clear error when the service fails, and the
 * planner reports it as a status and goes on without memory.
 */
export interface PlannerMemory {
  recallPastResults(options: { request: string }): Promise<PastTaskResult[]>;
  rememberTaskResult(options: { request: string; actions: readonly string[]; outcomes: readonly string[]; contextId?: string }): Promise<void>;
  recordPendingClarification(options: { contextId: string; planId: string; request: string; question: string }): Promise<void>;
  clearPendingClarification(options: { contextId: string }): Promise<void>;
}
