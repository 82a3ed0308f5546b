import type { AgentCard } from '@a2a-js/sdk';
import type { A2AChunk } from '../a2a/a2a-chunk.js';
import { A2AResponse } from '../a2a/a2a-response.js';
import { loadAgentCard } from '../a2a/agent-card.js';
import { AgentInteractionFlow, InteractionFlowNode } from '../a2a/interaction-flow.js';
import { loadAgentConfig } from '../core/config.js';
import { FrameworkAgent } from '../core/framework-agent.js';
import { FrameworkCore } from '../core/framework-core.js';
import type { LlmConfig } from '../core/llm-config.js';
import { editPlanWithModel } from '../planning/edit-plan.js';
import { generatePlan } from '../planning/generate-plan.js';
import { literalPlan } from '../planning/literal-plan.js';
import { AgentMemory } from '../memory/agent-memory.js';
import { plannerMemory } from '../memory/planner-memory-adapter.js';
import { defaultStepStatus, registerPlannerTask } from '../planning/planner-task.js';

/**
 * The tutorial planner (agent_cards/planner.json, port 8100): proposes a plan
 * and waits for the user to approve, reject or change it (the spec's
 * plan-confirmation table), then delegates each action to the executor over
 * A2A (signed and policy-checked). Plans come from the configured model
 * (MODEL_NAME / LLM_CONFIG), or without one from the request's own steps.
 * Its own card comes from AGENT_CARD, the executor's from EXECUTOR_CARD
 * (defaults: agent_cards/planner.json and agent_cards/executor.json). With
 * AGENT_MEMORY_URL and CONTEXT_ID it keeps pending plans and task results in
 * system memory and recalls related past results when it plans.
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
  let llmConfig: LlmConfig | undefined | null = null;
  const model = () => (llmConfig === null ? (llmConfig = loadAgentConfig({ env, overrides: { AGENT_NAME: 'planner' } }).llmConfig) : llmConfig);

  // A bad model configuration is reported by the first task that needs the model, as before.
  let configured: LlmConfig | undefined;
  try {
    configured = model();
  } catch {
    configured = undefined;
  }

  // System memory (alpha) when the swarm provides it: AGENT_MEMORY_URL and CONTEXT_ID.
  const memory = env.AGENT_MEMORY_URL ? plannerMemory(new AgentMemory({ env })) : undefined;

  registerPlannerTask(core, {
    plan: async ({ query, pastResults }, { signal }) => {
      const config = model();
      return config ? generatePlan({ query, llmConfig: config, signal, pastResults }) : literalPlan(query);
    },
    // Edits the parser reads are applied without a model; with a model, what it cannot place goes to the model.
    ...(configured
      ? {
          editPlan: async ({ objective, actions, request, problem }, { signal }) =>
            editPlanWithModel({ objective, actions, request, llmConfig: configured, signal, ...(problem === undefined ? {} : { problem }) }),
        }
      : {}),
    executeAction: async ({ action, contextId, index }, { signal }) => {
      const [self, executor] = await loadCards();
      const flow = new AgentInteractionFlow({ env, ...(contextId ? { contextId } : {}), signal }).setSourceCard(self);
      flow.addNode(new InteractionFlowNode({ task: action, targetAgentCard: executor, nodeKey: `action_${index}` }));
      const chunks: A2AChunk[] = [];
      for await (const chunk of flow.runWorkflow()) chunks.push(chunk);
      return { outcome: A2AResponse.outcome(A2AResponse.fromResults(chunks)) };
    },
    stepStatus: (i, n, action) => [defaultStepStatus(i, n, action), `Delegating step ${i}/${n} to the executor: ${action}`],
    ...(memory ? { memory } : {}),
  });

  return { core, agent };
}
