import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toPublicError } from '../core/public-error.js';
import { FrameworkError } from '../core/framework-error.js';
import { errorFields, type Logger } from '../core/logger.js';
import type { SemanticService } from './semantic-service.js';
import * as Tools from './tool-contract.js';

/**
 * One MCP server (official SDK) with the Semantic Layer's document and
 * discovery tools, for one session. Imported when the first session opens.
 */
export function buildSemanticMcpServer(options: { service: SemanticService; version?: string }, logger: Logger): McpServer {
  const { service } = options;
  const server = new McpServer({ name: 'semantic-layer', version: options.version ?? '0.1.0' });
  const run = async (tool: string, work: () => Promise<Record<string, unknown>>): Promise<CallToolResult> => {
    try {
      const structured = await work();
      return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
    } catch (error) {
      if (!FrameworkError.isInstance(error)) logger.error('tool failed', { tool, ...errorFields(error) });
      const { message } = toPublicError(error);
      return { isError: true, content: [{ type: 'text', text: message }], structuredContent: { error: message } };
    }
  };

  server.registerTool(
    Tools.TOOL_NAMES.searchDocuments,
    {
      description: 'Searches stored documents by meaning. Returns up to max_results hits (default 3) with content, metadata and a cosine score.',
      inputSchema: Tools.SearchDocumentsInput,
      outputSchema: Tools.SearchDocumentsOutput,
    },
    ({ query, max_results, filter }) => run('search_documents', async () => ({ hits: await service.searchDocuments(query, max_results, filter) })),
  );

  server.registerTool(
    Tools.TOOL_NAMES.storeDocument,
    {
      description: 'Stores a document (content and string metadata) with its embedding.',
      inputSchema: Tools.StoreDocumentInput,
      outputSchema: Tools.StoreDocumentOutput,
    },
    ({ content, metadata }) => run('store_document', () => service.storeDocument(content, metadata ?? {})),
  );

  server.registerTool(
    Tools.TOOL_NAMES.findAgent,
    {
      description: 'Finds the agent whose card best matches a query, if any is similar enough.',
      inputSchema: Tools.FindAgentInput,
      outputSchema: Tools.FindAgentOutput,
    },
    ({ query }) => run('find_agent', () => service.findAgent(query)),
  );

  server.registerTool(
    Tools.TOOL_NAMES.listAgents,
    {
      description: 'Lists every indexed agent card.',
      outputSchema: Tools.ListAgentsOutput,
    },
    () => run('list_agents', async () => ({ agents: await service.listAgents() })),
  );

  server.registerTool(
    Tools.TOOL_NAMES.getAgentCard,
    {
      description: 'Returns the card of the agent with this name, or null.',
      inputSchema: Tools.GetAgentCardInput,
      outputSchema: Tools.GetAgentCardOutput,
    },
    ({ name }) => run('get_agent_card', async () => ({ agent: await service.getAgentCard(name) })),
  );

  server.registerTool(
    Tools.TOOL_NAMES.recommendAgents,
    {
      description: 'Recommends up to max_agents agents (default 3) for a task, best first, with scores.',
      inputSchema: Tools.RecommendAgentsInput,
      outputSchema: Tools.RecommendAgentsOutput,
    },
    ({ task, max_agents }) => run('recommend_agents', async () => ({ agents: await service.recommendAgents(task, max_agents) })),
  );

  return server;
}
