import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

/** The SDK's transport, imported when the first session opens (the MCP SDK and ajv are about 25 MB resident). */
let transportModule: Promise<typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js')> | undefined;

interface PooledSession {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  owner: string | undefined;
}

/**
 * The MCP sessions of one Streamable HTTP endpoint (official SDK, one server
 * per session), as the Semantic Layer and the memory service serve them: a
 * request with a known `mcp-session-id` goes to its session (and refreshes
 * its place in the idle order); an unknown id is a JSON-RPC 404 ("start a
 * new one"); a request without one opens a session. At most `maxSessions`
 * are kept: the longest idle is closed first. A session opened with an
 * `owner` answers only requests of that owner; to anyone else its id is
 * unknown. The SDK is loaded when the first session opens, and `open` may
 * return a promise (a server whose module is imported then).
 *
 * @example
 * const pool = new McpSessionPool(1000);
 * app.all('/mcp', (c) => pool.handle(c.req.raw, { owner: undefined, open: async () => (await import('./my-mcp-server.js')).buildServer() }));
 */
export class McpSessionPool {
  readonly #sessions = new Map<string, PooledSession>();

  constructor(readonly maxSessions: number) {}

  get size(): number {
    return this.#sessions.size;
  }

  async handle(request: Request, options: { owner: string | undefined; open: () => McpServer | Promise<McpServer> }): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id');
    const existing = sessionId ? this.#sessions.get(sessionId) : undefined;
    if (sessionId && existing && existing.owner === options.owner) {
      this.#sessions.delete(sessionId);
      this.#sessions.set(sessionId, existing);
      return existing.transport.handleRequest(request);
    }
    if (sessionId) {
      return Response.json(
        { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session terminated: unknown or expired MCP session; start a new one.' } },
        { status: 404 },
      );
    }
    const [server, { WebStandardStreamableHTTPServerTransport }] = await Promise.all([
      options.open(),
      (transportModule ??= import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js')),
    ]);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.#sessions.set(id, { transport, server, owner: options.owner });
        while (this.#sessions.size > this.maxSessions) {
          const [oldest, entry] = this.#sessions.entries().next().value!;
          this.#sessions.delete(oldest);
          void entry.server.close();
        }
      },
      onsessionclosed: (id) => {
        this.#sessions.delete(id);
      },
    });
    await server.connect(transport);
    return transport.handleRequest(request);
  }

  /** Closes every session. */
  async closeAll(): Promise<void> {
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.allSettled(all.map((entry) => entry.server.close()));
  }
}
