import type { AgentTool } from '../core/agent-tool.js';
import { MCPToolkit } from './mcp-toolkit.js';

/** What a tool's MCP result becomes for the model: its structured content, else its text parts joined. */
function resultOf(result: Awaited<ReturnType<MCPToolkit['callToolResult']>>): unknown {
  const structured = (result as { structuredContent?: unknown }).structuredContent;
  const text = Array.isArray(result.content)
    ? result.content
        .map((part) => (part.type === 'text' ? part.text : `[${part.type}]`))
        .join('\n')
        .trim()
    : '';
  if (result.isError)
    throw new Error(
      text || (typeof (structured as { error?: unknown })?.error === 'string' ? String((structured as { error: string }).error) : 'the tool failed'),
    );
  return structured ?? text;
}

/**
 * Every tool of an MCP server as an `AgentTool`, through the official MCP
 * client: the Semantic Layer (an `MCPToolkit`, or its URL such as
 * `http://127.0.0.1:10100/mcp`) or any MCP server over streamable HTTP. Each
 * tool keeps the server's name, description and input schema; `run` calls it
 * (reconnecting when the session drops) and resolves to its structured
 * content, or its text; a tool error rejects with the server's message, which
 * `invoke` sends to the model as the tool's error.
 *
 * @example
 * const tools = await mcpTools('http://127.0.0.1:10100/mcp');
 * await invoke(llmConfig, 'What do our documents say about refunds?', { tools });
 */
export async function mcpTools(source: MCPToolkit | string | URL, options: { only?: readonly string[] } = {}): Promise<AgentTool[]> {
  const toolkit = source instanceof MCPToolkit ? source : new MCPToolkit({ url: String(source) });
  const listed = await toolkit.listTools();
  return listed
    .filter((tool) => options.only === undefined || options.only.includes(tool.name))
    .map((tool) => ({
      name: tool.name,
      description: tool.description ?? '',
      inputSchema: tool.inputSchema as Readonly<Record<string, unknown>>,
      run: async (args: unknown) => resultOf(await toolkit.callToolResult(tool.name, (args ?? {}) as Record<string, unknown>)),
    }));
}
