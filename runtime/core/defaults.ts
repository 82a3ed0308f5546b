/**
 * Every default port, address and model name of the toolkit, defined once.
 * Components read them from here; the spec's "Components" table gives the
 * ports.
 */

/** Default local ports of each component. */
export const DEFAULT_PORTS = {
  /** The project agent (the first agent of a generated project). */
  agent: 8002,
  /** The tutorial's planner, executor and web interface. */
  planner: 8100,
  executor: 8101,
  tutorialWeb: 8103,
  /** The trading example's trader. */
  trader: 8104,
  guardian: 11438,
  /** The policy engine (OPA's port). */
  policy: 8181,
  semanticLayer: 10100,
  /** The vector store when it is a Weaviate server. */
  vectorStore: 8081,
  /** The model runtime (Ollama's port). */
  model: 11434,
  /** The system memory service (the Agent Memory Server's port). */
  memory: 8000,
  /** Redis. */
  kv: 6379,
} as const;

/** The host every service listens on unless told otherwise. */
export const DEFAULT_HOST = '127.0.0.1';

/** Default addresses of the services on this machine. */
export const DEFAULT_URLS = {
  model: `http://${DEFAULT_HOST}:${DEFAULT_PORTS.model}`,
  policy: `http://${DEFAULT_HOST}:${DEFAULT_PORTS.policy}`,
  guardian: `http://${DEFAULT_HOST}:${DEFAULT_PORTS.guardian}`,
  semanticLayer: `http://${DEFAULT_HOST}:${DEFAULT_PORTS.semanticLayer}`,
  vectorStore: `http://${DEFAULT_HOST}:${DEFAULT_PORTS.vectorStore}`,
  memory: `http://${DEFAULT_HOST}:${DEFAULT_PORTS.memory}`,
  kv: `redis://${DEFAULT_HOST}:${DEFAULT_PORTS.kv}`,
} as const;

/** The default chat model: small enough for two CPU cores. */
export const DEFAULT_CHAT_MODEL = 'smollm2';

/** The default embedding model: sentence-transformers' all-MiniLM-L6-v2, 384 dimensions. */
export const DEFAULT_EMBEDDING_MODEL = 'all-minilm';
