import { JsonCommand } from '../../json-command.js';
import { semanticLayerFlags, serveSemanticLayer } from '../../serve/semantic-layer.js';

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

  static override flags = semanticLayerFlags;

  async run(): Promise<{ url: string; stopped: true }> {
    const { flags } = await this.parse(ServeSemanticLayer);
    return serveSemanticLayer(this, flags);
  }
}
