import { Flags } from '@oclif/core';
import { JsonCommand } from '../../json-command.js';
import { FrameworkError } from '../../../runtime/core/framework-error.js';
import { parseAddr, serveUntilStopped } from '../../serve-until-stopped.js';

export default class ServeSemanticLayer extends JsonCommand {
  static override description =
    'Run the Semantic Layer until interrupted: an MCP server (Streamable HTTP at /mcp) with search_documents, store_document, find_agent, list_agents, get_agent_card and recommend_agents over a vector store, and GET /health (503 "degraded" until an agent card is vectorized). ' +
    'Embeddings come from the model runtime at OLLAMA_HOST (framework-cli model serve; model all-minilm).';

  static override examples = [
    '<%= config.bin %> serve semantic-layer',
    '<%= config.bin %> serve semantic-layer --addr 127.0.0.1:10100 --cards agent_cards',
    'VECTOR_STORE=weaviate VECTOR_STORE_URL=http://127.0.0.1:8081 <%= config.bin %> serve semantic-layer --json',
  ];

  static override enableJsonFlag = true;

  /** `{"event":"listening"}` first, the result when stopped: one JSON document per line. */
  static override jsonLines = true;

  static override flags = {
    addr: Flags.string({ char: 'a', description: 'address to listen on, host:port (default: SEMANTIC_LAYER_HOST:SEMANTIC_LAYER_PORT, else 127.0.0.1:10100)' }),
    cards: Flags.string({ description: 'folder of agent card files (default: AGENT_CARDS_DIR, else services/semantic_layer/agent_cards)' }),
    'store-dir': Flags.string({ description: 'LanceDB folder (default: VECTOR_STORE_DIR, else .framework/semantic)' }),
  };

  async run(): Promise<{ url: string; stopped: true }> {
    const { flags } = await this.parse(ServeSemanticLayer);
    // Loaded once the arguments are known good: a mistyped flag does not wait for it.
    const [{ startSemanticLayer }, { createLogger }, { loadSemanticConfig }] = await Promise.all([
      import('../../../runtime/semantic/start-semantic-layer.js'),
      import('../../../runtime/core/logger.js'),
      import('../../../runtime/semantic/semantic-config.js'),
    ]);
    let addr: { host: string; port: number } | undefined;
    if (flags.addr !== undefined) {
      addr = parseAddr(flags.addr);
      if (!addr) this.error(`--addr ${JSON.stringify(flags.addr)} is not host:port (for example 127.0.0.1:10100).`, { exit: 2 });
    }
    let layer;
    try {
      const config = loadSemanticConfig({
        env: process.env,
        overrides: {
          ...(addr ? { SEMANTIC_LAYER_HOST: addr.host, SEMANTIC_LAYER_PORT: String(addr.port) } : {}),
          ...(flags.cards ? { AGENT_CARDS_DIR: flags.cards } : {}),
          ...(flags['store-dir'] ? { VECTOR_STORE_DIR: flags['store-dir'] } : {}),
        },
      });
      layer = await startSemanticLayer({ config, logger: createLogger({ name: 'semantic-layer', level: config.logLevel }) });
    } catch (error) {
      if (FrameworkError.isInstance(error)) this.error(error.message, { exit: 1, code: error.code });
      throw error;
    }
    return serveUntilStopped(this, layer, `Semantic Layer listening on ${layer.mcpUrl} (health: ${layer.url}/health)`);
  }
}
