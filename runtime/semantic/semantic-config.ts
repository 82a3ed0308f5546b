import { join } from 'node:path';
import { z } from 'zod';
import { ENV_FIELDS, readEnvironment, type Env, type LogLevel } from '../core/config.js';
import { DEFAULT_URLS } from '../core/defaults.js';

export const SEMANTIC_DEFAULTS = {
  host: '127.0.0.1',
  port: 10100,
  cardsDir: 'services/semantic_layer/agent_cards',
  /** Under the project's `.framework/` folder. */
  storeDir: join('.framework', 'semantic'),
  ollamaHost: DEFAULT_URLS.model,
  embeddingModel: 'all-minilm',
  maxContentBytes: 100_000,
  /** Cosine similarity a card must reach for `find_agent` to return it. */
  findThreshold: 0.2,
} as const;

/** Settings of the Semantic Layer service. */
export interface SemanticConfig {
  host: string;
  port: number;
  /** The folder of agent card files: the source of truth. */
  cardsDir: string;
  vectorStore: 'lancedb' | 'weaviate';
  /** LanceDB directory (lancedb). */
  storeDir: string;
  /** Weaviate address (weaviate). */
  vectorStoreUrl: string | undefined;
  ollamaHost: string;
  embeddingModel: string;
  maxContentBytes: number;
  findThreshold: number;
  logLevel: LogLevel;
}

const SemanticEnvSchema = z.object({
  SEMANTIC_LAYER_HOST: z.string().trim().min(1).optional(),
  SEMANTIC_LAYER_PORT: ENV_FIELDS.portOrZero.optional(),
  AGENT_CARDS_DIR: z.string().min(1).optional(),
  VECTOR_STORE: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(['lancedb', 'weaviate'], { error: 'must be lancedb or weaviate' }))
    .optional(),
  VECTOR_STORE_DIR: z.string().min(1).optional(),
  VECTOR_STORE_URL: ENV_FIELDS.url.optional(),
  OLLAMA_HOST: ENV_FIELDS.url.optional(),
  EMBEDDING_MODEL: z.string().trim().min(1).optional(),
  SEMANTIC_MAX_CONTENT_BYTES: ENV_FIELDS.positiveInt.optional(),
  FIND_AGENT_THRESHOLD: z.coerce.number({ error: 'must be a number from -1 to 1' }).min(-1).max(1).optional(),
  LOG_LEVEL: ENV_FIELDS.logLevel.optional(),
});

/**
 * The Semantic Layer's configuration from the environment: SEMANTIC_LAYER_HOST
 * / SEMANTIC_LAYER_PORT (127.0.0.1:10100), AGENT_CARDS_DIR
 * (services/semantic_layer/agent_cards), VECTOR_STORE (lancedb, or weaviate
 * with VECTOR_STORE_URL), VECTOR_STORE_DIR (.framework/semantic), OLLAMA_HOST,
 * EMBEDDING_MODEL (all-minilm), SEMANTIC_MAX_CONTENT_BYTES (100000),
 * FIND_AGENT_THRESHOLD (0.2), LOG_LEVEL. One `ConfigError` names every bad variable.
 */
export function loadSemanticConfig(options: { env?: Env; overrides?: Env } = {}): SemanticConfig {
  const e = readEnvironment(SemanticEnvSchema, { ...options, context: 'Invalid Semantic Layer configuration' });
  const vectorStore = e.VECTOR_STORE ?? 'lancedb';
  if (vectorStore === 'weaviate' && e.VECTOR_STORE_URL === undefined) {
    readEnvironment(z.object({ VECTOR_STORE_URL: ENV_FIELDS.url }), { ...options, context: 'VECTOR_STORE=weaviate needs the Weaviate address' });
  }
  return {
    host: e.SEMANTIC_LAYER_HOST ?? SEMANTIC_DEFAULTS.host,
    port: e.SEMANTIC_LAYER_PORT ?? SEMANTIC_DEFAULTS.port,
    cardsDir: e.AGENT_CARDS_DIR ?? SEMANTIC_DEFAULTS.cardsDir,
    vectorStore,
    storeDir: e.VECTOR_STORE_DIR ?? SEMANTIC_DEFAULTS.storeDir,
    vectorStoreUrl: e.VECTOR_STORE_URL,
    ollamaHost: e.OLLAMA_HOST ?? SEMANTIC_DEFAULTS.ollamaHost,
    embeddingModel: e.EMBEDDING_MODEL ?? SEMANTIC_DEFAULTS.embeddingModel,
    maxContentBytes: e.SEMANTIC_MAX_CONTENT_BYTES ?? SEMANTIC_DEFAULTS.maxContentBytes,
    findThreshold: e.FIND_AGENT_THRESHOLD ?? SEMANTIC_DEFAULTS.findThreshold,
    logLevel: e.LOG_LEVEL ?? 'info',
  };
}
