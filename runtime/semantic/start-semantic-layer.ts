import type { Logger } from '../core/logger.js';
import { silentLogger } from '../core/logger.js';
import { listen } from '../core/server/listen.js';
import { CardIndex } from './card-index.js';
import { createSemanticLayerApp } from './create-semantic-layer.js';
import { createVectorStore } from './create-vector-store.js';
import { OllamaEmbedder, type Embedder } from '../llm/embedder.js';
import type { SemanticConfig } from './semantic-config.js';
import { SemanticService } from './semantic-service.js';
import type { VectorStore } from './vector-store.js';

export interface RunningSemanticLayer {
  readonly url: string;
  readonly port: number;
  /** The MCP endpoint, e.g. http://127.0.0.1:10100/mcp. */
  readonly mcpUrl: string;
  readonly service: SemanticService;
  readonly store: VectorStore;
  /** Settles when start-up indexing is done (or rejects if it was stopped). */
  readonly indexing: Promise<void>;
  /** Open MCP sessions. */
  sessionCount(): number;
  close(): Promise<void>;
}

/**
 * Starts the Semantic Layer: listens at once (health answers 503 `degraded`
 * until cards are indexed), then waits for the embedder and indexes the
 * cards on disk in the background.
 *
 * @example
 * const layer = await startSemanticLayer({ config: loadSemanticConfig() });
 */
export async function startSemanticLayer(options: {
  config: SemanticConfig;
  logger?: Logger;
  embedder?: Embedder;
  store?: VectorStore;
}): Promise<RunningSemanticLayer> {
  const { config } = options;
  const logger = options.logger ?? silentLogger;
  const store = options.store ?? (await createVectorStore(config, { logger }));
  const embedder = options.embedder ?? new OllamaEmbedder({ host: config.ollamaHost, model: config.embeddingModel });
  const cards = new CardIndex({ dir: config.cardsDir, store, embedder, logger });
  const service = new SemanticService({ store, embedder, cards, logger, maxContentBytes: config.maxContentBytes, findThreshold: config.findThreshold });
  const app = createSemanticLayerApp({ service, logger });
  let listening;
  try {
    listening = await listen(app, { host: config.host, port: config.port, portHint: 'set SEMANTIC_LAYER_PORT or pass --addr' });
  } catch (error) {
    await store.close();
    throw error;
  }
  const stop = new AbortController();
  const indexing = service.start({ signal: stop.signal });
  indexing.catch((error: unknown) => {
    if (!stop.signal.aborted) logger.error('indexing the agent cards failed', { error: error instanceof Error ? error.message : String(error) });
  });
  let closing: Promise<void> | undefined;
  return {
    url: listening.url,
    port: listening.port,
    mcpUrl: `${listening.url}/mcp`,
    service,
    store,
    indexing,
    sessionCount: () => app.sessionCount(),
    close: () =>
      (closing ??= (async () => {
        stop.abort();
        await indexing.catch(() => undefined);
        await app.closeSessions();
        await listening.close();
        await store.close();
      })()),
  };
}
