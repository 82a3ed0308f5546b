import { JsonCommand } from '../../json-command.js';
import { agentFlags, serveAgent } from '../../serve/agent.js';

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

  static override flags = agentFlags;

  async run(): Promise<{ url: string; stopped: true }> {
    const { flags } = await this.parse(ServeAgent);
    return serveAgent(this, flags);
  }
}
