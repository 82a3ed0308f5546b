import * as Flags from '@oclif/core/flags';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import type { AgentModule } from '../../runtime/core/load-agent-module.js';
import { serveUntilStopped, type ServeIo } from '../serve-until-stopped.js';
import type { Interfaces } from '@oclif/core';

/** The example agents, each imported only when chosen: a process holds the code of the agent it runs, not of all four. */
const EXAMPLES: Record<string, () => Promise<AgentModule>> = {
  hello: async () => (await import('../../runtime/examples/hello-agent.js')).createHelloAgent(),
  planner: async () => (await import('../../runtime/examples/planner-agent.js')).createPlannerAgent(),
  executor: async () => (await import('../../runtime/examples/executor-agent.js')).createExecutorAgent(),
  trader: async () => (await import('../../runtime/examples/trader-agent.js')).createTraderAgent(),
};

/** The flags of `serve agent` (its command and its lean start share them). */
export const agentFlags = {
  module: Flags.string({ char: 'm', description: 'JavaScript module exporting { core, agent } (default: an example agent)', exclusive: ['example'] }),
  example: Flags.string({ description: 'built-in example agent to run', options: ['hello', 'planner', 'executor', 'trader'], default: 'hello' }),
  'a2a-only': Flags.boolean({
    description: 'serve the A2A endpoint only, no front door (an executor)',
    default: false,
    exclusive: ['minimal', 'chat-compat'],
  }),
  port: Flags.integer({
    char: 'p',
    description: "port of the agent, front door and A2A (default: AGENT_PORT, else the port of AGENT_CARD's URL, else 8002)",
    min: 0,
    max: 65535,
  }),
  host: Flags.string({ description: 'address to bind (default: AGENT_HOST, else 127.0.0.1)' }),
  minimal: Flags.boolean({ description: 'minimal front door: only POST /stream, data-only events', default: false }),
  'chat-compat': Flags.boolean({ description: 'also answer the Ollama chat API for chat web interfaces', default: false }),
};

/** The body of `serve agent` once its flags are parsed: starts the service and serves until stopped. */
export async function serveAgent(io: ServeIo, flags: Interfaces.InferredFlags<typeof agentFlags>): Promise<{ url: string; stopped: true }> {
  let loaded: AgentModule;
  let running;
  try {
    loaded = flags.module ? await (await import('../../runtime/core/load-agent-module.js')).loadAgentModule(flags.module) : await EXAMPLES[flags.example]!();
    const { runAgent } = await import('../../runtime/agent/run-agent.js');
    running = await runAgent(loaded.core, loaded.agent, {
      port: flags.port,
      host: flags.host,
      mode: flags['a2a-only'] ? 'a2a' : flags.minimal ? 'minimal' : 'full',
      chatCompat: flags['chat-compat'],
    });
  } catch (error) {
    if (FrameworkError.isInstance(error)) io.error(error.message, { exit: 1, code: error.code });
    throw error;
  }
  return serveUntilStopped(io, running, `Agent "${loaded.agent.agentName}" listening on ${running.url}`);
}
