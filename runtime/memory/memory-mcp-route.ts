import type { Hono } from 'hono';
import type { Logger } from '../core/logger.js';
import type { MemoryAccess } from './memory-edits.js';
import type { SystemMemory } from './system-memory.js';
import { McpSessionPool } from '../semantic/mcp-session-pool.js';

/** Where the memory service serves MCP (AMS's streamable-http path). */
export const MEMORY_MCP_PATH = '/mcp';

/**
 * Serves the Agent Memory Server's MCP tools at `/mcp` of the memory service
 * (official SDK, Streamable HTTP, one server per MCP session), each running
 * the same code as its REST route. A failure is a tool result with
 * `isError` and the message, never a transport error. The MCP SDK and the
 * tools are imported when the first session opens.
 *
 * @example
 * mountMemoryMcp(app, { memory, logger, access: (request) => ({ owner: ownerOf(request) }) });
 */
export function mountMemoryMcp(
  app: Hono,
  options: { memory: SystemMemory; logger: Logger; access: (request: Request) => MemoryAccess; maxSessions?: number },
): { closeSessions(): Promise<void> } {
  const sessions = new McpSessionPool(options.maxSessions ?? 1000);
  // A session is its opener's (the token of the request that opened it scopes its tools, in token mode):
  // another token presenting its id is treated as unknown.
  app.all(MEMORY_MCP_PATH, (c) => {
    const access = options.access(c.req.raw);
    return sessions.handle(c.req.raw, {
      owner: access.owner,
      open: async () => (await import('./memory-mcp.js')).buildMemoryMcpServer(options.memory, options.logger, access),
    });
  });
  return { closeSessions: () => sessions.closeAll() };
}
