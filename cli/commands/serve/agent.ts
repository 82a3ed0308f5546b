import { Command, Flags } from '@oclif/core';
import { FrameworkError } from '../../../runtime/core/framework-error.js';
import { loadAgentModule, type AgentModule } from '../../../runtime/core/load-agent-module.js';
import { createHelloAgent } from '../../../runtime/examples/hello-agent.js';
import { serveUntilStopped } from '../../serve-until-stopped.js';

export default class ServeAgent extends Command {
  static override description =
    'Run an agent\'s HTTP front door (POST /stream, /query, /session/start, GET /health) until interrupted. Without --module it runs the built-in example agent "hello".';

  static override examples = [
    '<%= config.bin %> serve agent',
    '<%= config.bin %> serve agent --port 8100 --chat-compat',
    'SESSION_BACKEND=kv SESSION_KV_URL=redis://127.0.0.1:6379 <%= config.bin %> serve agent --module dist/agents/planner/main.js',
  ];

  static override enableJsonFlag = true;

  static override flags = {
    module: Flags.string({ char: 'm', description: 'JavaScript module exporting { core, agent } (default: the example agent)' }),
    port: Flags.integer({ char: 'p', description: 'port of the front door (default: AGENT_PORT, else 8002)', min: 0, max: 65535 }),
    host: Flags.string({ description: 'address to bind (default: AGENT_HOST, else 127.0.0.1)' }),
    minimal: Flags.boolean({ description: 'minimal front door: only POST /stream, data-only events', default: false }),
    'chat-compat': Flags.boolean({ description: 'also answer the Ollama chat API for chat web interfaces', default: false }),
  };

  async run(): Promise<{ url: string; stopped: true }> {
    const { flags } = await this.parse(ServeAgent);
    let loaded: AgentModule;
    let running;
    try {
      loaded = flags.module ? await loadAgentModule(flags.module) : createHelloAgent();
      running = await loaded.core.run(loaded.agent, {
        port: flags.port,
        host: flags.host,
        mode: flags.minimal ? 'minimal' : 'full',
        chatCompat: flags['chat-compat'],
      });
    } catch (error) {
      if (FrameworkError.isInstance(error)) this.error(error.message, { exit: 1, code: error.code });
      throw error;
    }
    return serveUntilStopped(this, running, `Agent "${loaded.agent.agentName}" listening on ${running.url}`);
  }
}
