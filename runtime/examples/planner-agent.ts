import type { AgentCard } from '@a2a-js/sdk';
import { A2AResponse } from '../a2a/a2a-response.js';
import type { A2aChunk } from '../a2a/a2a-chunk.js';
import { loadAgentCard } from '../a2a/agent-card.js';
import { AgentInteractionFlow, InteractionFlowNode } from '../a2a/interaction-flow.js';
import { AgentResponse } from '../core/agent-response.js';
import { FrameworkAgent } from '../core/framework-agent.js';
import { FrameworkCore } from '../core/framework-core.js';
import { FrameworkError } from '../core/framework-error.js';
import { parseTaskInput } from '../core/task-input.js';

/** Splits a request into actions: one per line, or separated by ";" or " then ". */
export function splitActions(text: string): string[] {
  return text
    .split(/\r?\n|;|\bthen\b/i)
    .map((action) => action.replace(/^\s*(\d+[.)]|[-*])\s*/, '').trim())
    .filter((action) => action.length > 0);
}

/**
 * The tutorial planner (agent_cards/planner.json): splits a request into
 * ordered actions and delegates each one to the executor over A2A (signed,
 * policy-checked), then yields `{actions, outcomes}`. Its own card comes
 * from AGENT_CARD, the executor's from EXECUTOR_CARD (defaults:
 * agent_cards/planner.json and agent_cards/executor.json). The model-driven
 * planner with plan confirmation is the planning module's.
 */
export function createPlannerAgent(options: { env?: Readonly<Record<string, string | undefined>> } = {}): { core: FrameworkCore; agent: FrameworkAgent } {
  const env = options.env ?? process.env;
  const core = new FrameworkCore();
  const agent = new FrameworkAgent({
    agentName: 'planner',
    description: 'Tutorial planner: turns a request into ordered actions and delegates each one to the executor over A2A.',
    version: '0.1.0',
  });
  let cards: Promise<[AgentCard, AgentCard]> | undefined;
  const loadCards = () =>
    (cards ??= Promise.all([
      loadAgentCard(env.AGENT_CARD || 'agent_cards/planner.json').then(([card]) => card),
      loadAgentCard(env.EXECUTOR_CARD || 'agent_cards/executor.json').then(([card]) => card),
    ]));

  core.task({ name: 'route_to_task', taskId: 'plan_and_delegate' }, async function* ({ query, contextId, signal }) {
    const { text } = parseTaskInput(query);
    const actions = splitActions(text);
    if (actions.length === 0) {
      yield AgentResponse.error('Nothing to do: send one or more actions, one per line or separated by ";".', { code: 'invalid_request' });
      return;
    }
    yield AgentResponse.status('Planning...');
    const [self, executor] = await loadCards();
    const outcomes: string[] = [];
    for (const [index, action] of actions.entries()) {
      yield AgentResponse.status(`Delegating step ${index + 1}/${actions.length} to the executor: ${action}`);
      const flow = new AgentInteractionFlow({ env, ...(contextId ? { contextId } : {}), signal }).setSourceCard(self);
      flow.addNode(new InteractionFlowNode({ task: action, targetAgentCard: executor, nodeKey: `action_${index + 1}` }));
      const chunks: A2aChunk[] = [];
      try {
        for await (const chunk of flow.runWorkflow()) chunks.push(chunk);
      } catch (error) {
        if (FrameworkError.isInstance(error)) {
          yield AgentResponse.error(`Step ${index + 1} was not delegated: ${error.message}`, { code: error.code });
          return;
        }
        throw error;
      }
      outcomes.push(A2AResponse.outcome(A2AResponse.fromResults(chunks)));
    }
    yield AgentResponse.result({ actions, outcomes });
  });

  return { core, agent };
}
