import { AgentResponse } from '../core/agent-response.js';
import { FrameworkAgent } from '../core/framework-agent.js';
import { FrameworkCore } from '../core/framework-core.js';
import { parseTaskInput } from '../core/task-input.js';

/**
 * The tutorial executor (agent_cards/executor.json): carries out one
 * plain-text action per A2A call and reports its outcome. It has no web
 * interface; run it with `framework-cli serve agent --example executor --a2a-only`.
 * An action starting with "fail:" fails, to show how a failure travels back.
 */
export function createExecutorAgent(): { core: FrameworkCore; agent: FrameworkAgent } {
  const core = new FrameworkCore();
  const agent = new FrameworkAgent({
    agentName: 'executor',
    description: 'Tutorial executor: carries out one action per call. Reachable by A2A only.',
    version: '0.1.0',
  });

  core.step({ name: 'execute_action' }, async ({ action, contextId }) => {
    const text = String(action).trim();
    if (/^fail:/i.test(text)) throw new Error(`could not carry out "${text.slice(5).trim()}"`);
    return { action: text, outcome: `Done: ${text}`, context_id: String(contextId ?? 'default') };
  });

  core.task({ name: 'route_to_task', taskId: 'execute' }, async function* ({ query, contextId, agent: runtime }) {
    const { text } = parseTaskInput(query);
    yield AgentResponse.status(`Executing: ${text}`);
    try {
      const done = await runtime.executeStep('execute_action', { action: text, contextId });
      yield AgentResponse.result(done);
    } catch (error) {
      yield AgentResponse.error(error instanceof Error ? error.message : String(error), { code: 'action_failed' });
    }
  });

  return { core, agent };
}
