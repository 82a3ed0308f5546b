import { AgentResponse } from '../core/agent-response.js';
import { loadAgentConfig } from '../core/config.js';
import { FrameworkAgent } from '../core/framework-agent.js';
import { FrameworkCore } from '../core/framework-core.js';
import { parseTaskInput } from '../core/task-input.js';

/**
 * The example agent that `framework-cli serve agent` runs when no module is
 * given. It shows the programming model end to end: a router task, tasks
 * that stream status and results, steps, per-conversation session context,
 * and (when a model is configured) an LLM call with conversation memory.
 *
 * - `ask: <question>` goes to the `ask` task, which calls the configured model
 *   (MODEL_NAME / OLLAMA_HOST or LLM_CONFIG) with the conversation as thread;
 * - anything else goes to `echo`, which answers without a model.
 */
export function createHelloAgent(options: { env?: Readonly<Record<string, string | undefined>> } = {}): {
  core: FrameworkCore;
  agent: FrameworkAgent;
} {
  const env = options.env ?? process.env;
  const core = new FrameworkCore();
  const agent = new FrameworkAgent({
    agentName: env.AGENT_NAME || 'hello',
    description: 'Example agent: echoes and counts words, or asks the configured model.',
    contentTypes: ['text', 'text/plain'],
    systemPrompt: 'You are a concise, helpful assistant.',
    version: '0.1.0',
  });

  core.step({ name: 'count_words' }, async ({ text }) => {
    const words = String(text ?? '')
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    return { words: words.length, longest: words.reduce((a, w) => (w.length > a.length ? w : a), '') };
  });

  core.step({ name: 'remember_turn' }, async ({ contextId }, { agent: runtime }) => {
    const id = String(contextId);
    const context = await runtime.getSessionContext(id);
    const turns = (typeof context.turns === 'number' ? context.turns : 0) + 1;
    await runtime.updateSessionContext(id, { turns });
    return { turns };
  });

  core.task({ name: 'echo', taskId: 'echo' }, async function* ({ query, contextId, agent: runtime }) {
    const { text } = parseTaskInput(query);
    yield AgentResponse.status('Reading your message...');
    const counted = await runtime.executeStep('count_words', { text });
    const turn = contextId ? await runtime.executeStep('remember_turn', { contextId }) : { turns: 1 };
    yield AgentResponse.status(`Counted ${String(counted.words)} word(s)`);
    yield AgentResponse.result({ answer: `You said: ${text}`, words: counted.words, longest: counted.longest, turn: turn.turns });
  });

  core.task({ name: 'ask', taskId: 'ask' }, async function* ({ query, contextId, signal }) {
    const { text } = parseTaskInput(query);
    const llmConfig = agent.llmConfig ?? loadAgentConfig({ env, overrides: { AGENT_NAME: agent.agentName } }).llmConfig;
    if (!llmConfig) {
      yield AgentResponse.error('No model is configured: set MODEL_NAME (and OLLAMA_HOST) or LLM_CONFIG, then restart the agent.', {
        code: 'model_not_configured',
      });
      return;
    }
    yield AgentResponse.status(`Asking ${llmConfig.model}...`);
    // The model client is loaded by the first question, not by an agent that only echoes.
    const { invoke } = await import('../llm/invoke.js');
    const answer = await invoke(llmConfig, text, { threadId: contextId, signal, system: agent.systemPrompt });
    yield AgentResponse.result({ answer });
  });

  core.task({ name: 'route_to_task', taskId: 'route' }, async function* ({ query, contextId, signal, agent: runtime }) {
    const { text } = parseTaskInput(query);
    const match = /^\s*ask:\s*(.+)$/is.exec(text);
    const target = match ? 'ask' : 'echo';
    yield* runtime.executeTask(target, { query: match?.[1] ?? text, contextId, signal });
  });

  return { core, agent };
}
