import type { Hono } from 'hono';
import { silentLogger, type Logger } from '../core/logger.js';
import { createBaseApp } from '../core/server/base-app.js';
import { McpSessionPool } from './mcp-session-pool.js';
import type { SemanticService } from './semantic-service.js';

export interface SemanticLayerAppOptions {
  service: SemanticService;
  logger?: Logger;
  /** Most MCP sessions kept at once; the oldest idle one is closed past it. Default 1000. */
  maxSessions?: number;
  version?: string;
}

/** The MCP path of the Semantic Layer. */
export const MCP_PATH = '/mcp';

/**
 * The Semantic Layer over HTTP: an MCP server (official SDK, Streamable HTTP,
 * one server per session, loaded when the first session opens) at `/mcp`
 * with the document and discovery tools, and `GET /health` (200 when at
 * least one agent card has a vector, else 503 `degraded`). Tool failures are results with an `error` key, never thrown
 * transport errors.
 *
 * @example
 * const app = createSemanticLayerApp({ service });
 */
export function createSemanticLayerApp(options: SemanticLayerAppOptions): Hono & { closeSessions(): Promise<void>; sessionCount(): number } {
  const logger = options.logger ?? silentLogger;
  const sessions = new McpSessionPool(options.maxSessions ?? 1000);
  const app = createBaseApp({ logger, notFoundHint: `; the Semantic Layer serves MCP at ${MCP_PATH} and GET /health` });

  app.get('/health', async (c) => {
    const health = await options.service.health();
    return c.json(health, health.status === 'ok' ? 200 : 503);
  });

  app.all(MCP_PATH, (c) =>
    sessions.handle(c.req.raw, { owner: undefined, open: async () => (await import('./semantic-mcp-server.js')).buildSemanticMcpServer(options, logger) }),
  );

  return Object.assign(app, {
    sessionCount: () => sessions.size,
    closeSessions: () => sessions.closeAll(),
  });
}
