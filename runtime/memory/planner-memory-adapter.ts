import type { PastTaskResult, PlannerMemory } from '../planning/planner-memory.js';
import type { AgentMemory } from './agent-memory.js';

/** The topic of every task result the planner remembers. */
export const TASK_RESULT_TOPIC = 'task_result';
/** The working-memory data key of a conversation's plan awaiting an answer. */
export const PENDING_CLARIFICATION_PREFIX = 'pending_clarification:';

export interface PlannerMemoryOptions {
  /** Most past results recalled per request; default 3. */
  maxResults?: number;
  /** Only results at most this cosine distance from the request; default 0.5 (all-MiniLM: paraphrases are near 0.2–0.4, unrelated text near 0.8–1). */
  maxDistance?: number;
}

/**
 * The planner's use of system memory, over an `AgentMemory` (the swarm's
 * session `CONTEXT_ID`): finished tasks become long-term memories (topic
 * `task_result`, episodic, the request with each action and its outcome),
 * recalled by similarity for a new request; a proposed plan is a pending
 * clarification in the swarm's working memory (data key
 * `pending_clarification:<context_id>` and a message), removed once decided.
 *
 * @example
 * registerPlannerTask(core, { plan, executeAction, memory: plannerMemory(new AgentMemory()) }); // AGENT_MEMORY_URL, CONTEXT_ID
 */
export function plannerMemory(memory: AgentMemory, options: PlannerMemoryOptions = {}): PlannerMemory {
  const maxResults = options.maxResults ?? 3;
  const maxDistance = options.maxDistance ?? 0.5;
  return {
    async recallPastResults({ request }): Promise<PastTaskResult[]> {
      const found = await memory.recall(request, { limit: maxResults, distanceThreshold: maxDistance, topics: [TASK_RESULT_TOPIC] });
      return found.map((record) => ({ text: record.text, distance: record.dist }));
    },
    async rememberTaskResult({ request, actions, outcomes }): Promise<void> {
      const steps = actions.map((action, i) => `${i + 1}. ${action} → ${outcomes[i] ?? '(no outcome)'}`);
      await memory.remember(`Task: ${request}\nResults:\n${steps.join('\n')}`, { topics: [TASK_RESULT_TOPIC], memoryType: 'episodic', eventDate: new Date() });
    },
    async recordPendingClarification({ contextId, planId, request, question }): Promise<void> {
      await memory.addToWorkingMemory({
        messages: [{ role: 'assistant', content: `Waiting for the user to approve, reject or change plan ${planId} for: ${request}` }],
        data: { [`${PENDING_CLARIFICATION_PREFIX}${contextId}`]: { plan_id: planId, request, question, since: new Date().toISOString() } },
      });
    },
    async clearPendingClarification({ contextId }): Promise<void> {
      await memory.addToWorkingMemory({ data: { [`${PENDING_CLARIFICATION_PREFIX}${contextId}`]: null } });
    },
  };
}
