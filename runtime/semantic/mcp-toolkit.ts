import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { DEFAULT_MAX_RESULTS, TOOL_NAMES, type AgentCardJson, type DocumentHit } from './tool-contract.js';
import { DEFAULT_URLS } from '../core/defaults.js';

export const DEFAULT_SEMANTIC_LAYER_URL = `${DEFAULT_URLS.semanticLayer}/mcp`;

export interface MCPToolkitOptions {
  /** The Semantic Layer's MCP endpoint; default SEMANTIC_LAYER_URL, else http://127.0.0.1:10100/mcp. */
  url?: string;
  /** Retries of `callWithRetry` when none is given (default 3). */
  maxRetries?: number;
  /** First back-off delay; doubles per retry (default 200 ms). */
  retryDelayMs?: number;
  /** Per-call timeout (default 30 s). */
  timeoutMs?: number;
  logger?: Logger;
}

/** A tool result: its structured content, or `{error}`. */
export type ToolOutcome = Record<string, unknown>;

/**
 * The client side of the Semantic Layer: one MCP session (official SDK
 * client, Streamable HTTP) reused across calls, reconnecting when it drops.
 * Tool failures come back as objects with an `error` key, as the spec's
 * retrieval pattern expects; `callWithRetry` retries transport failures and
 * "Session terminated" with back-off.
 *
 * @example
 * const toolkit = new MCPToolkit({ url: 'http://127.0.0.1:10100/mcp' });
 * await toolkit.storeDocument('Paris is the capital of France.', { source: 'atlas' });
 * const hits = await toolkit.searchDocuments('capital of France', 3);
 * await toolkit.close();
 */
export class MCPToolkit {
  readonly url: string;
  readonly #o: Required<Omit<MCPToolkitOptions, 'url' | 'logger'>>;
  readonly #logger: Logger;
  #client: Promise<Client> | undefined;

  constructor(options: MCPToolkitOptions = {}) {
    this.url = options.url ?? process.env.SEMANTIC_LAYER_URL ?? DEFAULT_SEMANTIC_LAYER_URL;
    new URL(this.url); // a bad address fails here, not at the first call
    this.#o = { maxRetries: options.maxRetries ?? 3, retryDelayMs: options.retryDelayMs ?? 200, timeoutMs: options.timeoutMs ?? 30_000 };
    this.#logger = options.logger ?? silentLogger;
  }

  /** Hits for `query` (default 3), or `{error}` when the search failed. */
  async searchDocuments(query: string, maxResults = DEFAULT_MAX_RESULTS): Promise<DocumentHit[] | { error: string }> {
    const outcome = await this.callWithRetry(TOOL_NAMES.searchDocuments, {}, { query, max_results: maxResults });
    return 'error' in outcome ? { error: String(outcome.error) } : ((outcome.hits as DocumentHit[] | undefined) ?? []);
  }

  async storeDocument(content: string, metadata: Readonly<Record<string, string>> = {}): Promise<ToolOutcome> {
    return this.callWithRetry(TOOL_NAMES.storeDocument, {}, { content, metadata });
  }

  /** The best matching agent card, or null (also null when discovery failed; the error is logged). */
  async findAgent(query: string): Promise<AgentCardJson | null> {
    const outcome = await this.callWithRetry(TOOL_NAMES.findAgent, {}, { query });
    if ('error' in outcome) {
      this.#logger.warn('agent not found', { query, error: outcome.error });
      return null;
    }
    return (outcome.agent as AgentCardJson | null | undefined) ?? null;
  }

  async listAgents(): Promise<AgentCardJson[] | { error: string }> {
    const outcome = await this.callWithRetry(TOOL_NAMES.listAgents, {}, {});
    return 'error' in outcome ? { error: String(outcome.error) } : ((outcome.agents as AgentCardJson[] | undefined) ?? []);
  }

  async getAgentCard(name: string): Promise<AgentCardJson | null> {
    const outcome = await this.callWithRetry(TOOL_NAMES.getAgentCard, {}, { name });
    return 'error' in outcome ? null : ((outcome.agent as AgentCardJson | null | undefined) ?? null);
  }

  async recommendAgents(task: string, maxAgents = DEFAULT_MAX_RESULTS): Promise<{ card: AgentCardJson; score: number }[] | { error: string }> {
    const outcome = await this.callWithRetry(TOOL_NAMES.recommendAgents, {}, { task, max_agents: maxAgents });
    return 'error' in outcome ? { error: String(outcome.error) } : ((outcome.agents as { card: AgentCardJson; score: number }[] | undefined) ?? []);
  }

  /**
   * Calls a tool, reconnecting and retrying with back-off (up to
   * `maxRetries`) when the connection drops or the server says the session
   * is terminated. A tool's own failure is not retried: it comes back as `{error}`.
   * When every attempt fails, the result is `{error}` naming the last cause.
   */
  async callWithRetry(toolName: string, options: { maxRetries?: number }, params: Record<string, unknown>): Promise<ToolOutcome> {
    try {
      return toOutcome(await this.callToolResult(toolName, params, options));
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  }

  /**
   * Calls a tool and resolves to MCP's raw `CallToolResult` (content,
   * `structuredContent`, `isError`), with the same reconnection and retries as
   * `callWithRetry`; rejects when every attempt fails.
   */
  async callToolResult(
    toolName: string,
    params: Record<string, unknown>,
    options: { maxRetries?: number } = {},
  ): Promise<Awaited<ReturnType<Client['callTool']>>> {
    return this.#withRetry(toolName, options, (client) => client.callTool({ name: toolName, arguments: params }, undefined, { timeout: this.#o.timeoutMs }));
  }

  /** The server's tools (name, description, input schema), through the same session and retries. */
  async listTools(): Promise<Awaited<ReturnType<Client['listTools']>>['tools']> {
    const listed = await this.#withRetry('tools/list', {}, (client) => client.listTools(undefined, { timeout: this.#o.timeoutMs }));
    return listed.tools;
  }

  async #withRetry<T>(what: string, options: { maxRetries?: number }, call: (client: Client) => Promise<T>): Promise<T> {
    const maxRetries = options.maxRetries ?? this.#o.maxRetries;
    let delay = this.#o.retryDelayMs;
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await call(await this.#connect());
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        if (!isConnectionProblem(error) || attempt >= maxRetries) {
          throw new Error(attempt > 0 ? `${reason} (after ${attempt + 1} attempts)` : reason, { cause: error });
        }
        this.#logger.warn('Semantic Layer connection lost; reconnecting', { tool: what, attempt: attempt + 1, reason });
        await this.#reset();
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay *= 2;
      }
    }
  }

  /** Ends the MCP session. */
  async close(): Promise<void> {
    await this.#reset();
  }

  #connect(): Promise<Client> {
    this.#client ??= (async () => {
      const client = new Client({ name: 'framework-core-mcp-toolkit', version: '0.1.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(this.url)));
      return client;
    })().catch((error: unknown) => {
      this.#client = undefined;
      throw error;
    });
    return this.#client;
  }

  async #reset(): Promise<void> {
    const pending = this.#client;
    this.#client = undefined;
    const client = await pending?.catch(() => undefined);
    await client?.close().catch(() => undefined);
  }
}

function toOutcome(result: Awaited<ReturnType<Client['callTool']>>): ToolOutcome {
  const structured = (result as { structuredContent?: Record<string, unknown> }).structuredContent;
  if (result.isError) {
    const text = Array.isArray(result.content)
      ? result.content
          .map((part) => (part.type === 'text' ? part.text : ''))
          .join(' ')
          .trim()
      : '';
    return { error: typeof structured?.error === 'string' ? structured.error : text || 'the tool failed' };
  }
  return structured ?? {};
}

/** Failures worth reconnecting for: the server went away, or forgot our session. */
function isConnectionProblem(error: unknown): boolean {
  if (error instanceof StreamableHTTPError) return error.code === 404 || error.code === undefined || error.code === -1 || (error.code ?? 0) >= 500;
  const text = error instanceof Error ? `${error.message} ${error.cause instanceof Error ? error.cause.message : ''}` : String(error);
  return /session terminated|session not found|fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|other side closed|Connection closed/i.test(text);
}
