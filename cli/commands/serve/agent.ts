import { Flags } from '@oclif/core';
import { JsonCommand } from '../../json-command.js';
import { FrameworkError } from '../../../runtime/core/framework-error.js';
import type { AgentModule } from '../../../runtime/core/load-agent-module.js';
import { serveUntilStopped } from '../../serve-until-stopped.js';

/** The example agents, each imported only when chosen: a process holds the code of the agent it runs, not of all four. */
const EXAMPLES: Record<string, () => Promise<AgentModule>> = {
  hello: async () => (await import('../../../runtime/examples/hello-agent.js')).createHelloAgent(),
  planner: async () => (await import('../../../runtime/examples/planner-agent.js')).createPlannerAgent(),
  executor: async () => (await import('../../../runtime/examples/executor-agent.js')).createExecutorAgent(),
  trader: async () => (await import('../../../runtime/examples/trader-agent.js')).createTraderAgent(),
};

export default class ServeAgent extends JsonCommand {
  static override description =
    'Run an agent until interrupted: its HTTP front door (POST /stream, /query, /session/start, GET /health) and its A2A endpoint (agent card at /.well-known/agent-card.json, JSON-RPC at the card\'s URL). Without --module it runs a built-in example agent (default "hello").';

  static override examples = [
    '<%= config.bin %> serve agent',
    '<%= config.bin %> serve agent --port 8100 --chat-compat',
    'SESSION_BACKEND=kv SESSION_KV_URL=redis://127.0.0.1:6379 <%= config.bin %> serve agent --module dist/agents/planner/main.js',
    'AGENT_CARD=agent_cards/executor.json A2A_KEYS_FILE=~/.config/framework/a2a-keys.json <%= config.bin %> serve agent --example executor --a2a-only',
    'GUARDIAN_URL=http://127.0.0.1:8080 <%= config.bin %> serve agent --example trader --port 8104',
  ];

  static override enableJsonFlag = true;

  /** `{"event":"listening"}` first, the result when stopped: one JSON document per line. */
  static override jsonLines = true;

  static override flags = {
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

  async run(): Promise<{ url: string; stopped: true }> {
    const { flags } = await this.parse(ServeAgent);
    let loaded: AgentModule;
    let running;
    try {
      loaded = flags.module
        ? await (await import('../../../runtime/core/load-agent-module.js')).loadAgentModule(flags.module)
        : await EXAMPLES[flags.example]!();
      const { runAgent } = await import('../../../runtime/agent/run-agent.js');
      running = await runAgent(loaded.core, loaded.agent, {
        port: flags.port,
        host: flags.host,
        mode: flags['a2a-only'] ? 'a2a' : flags.minimal ? 'minimal' : 'full',
        chatCompat: flags['chat-compat'],
      });
    } catch (error) {
      if (FrameworkError.isInstance(error)) this.error(error.message, { exit: 1, code: error.code });
      throw error;
    }
    return serveUntilStopped(this, running, `Agent "${loaded.agent.agentName}" listening on ${running.url}`);
  }
}
