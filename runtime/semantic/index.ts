/**
 * The Semantic Layer: an MCP server over a vector store for documents and
 * agent discovery, its client toolkit, and retrieval-augmented answers.
 *
 * This file is the complete public surface of `framework_core/semantic`: names are exported
 * one by one, never with a wildcard, and a snapshot test keeps the list
 * deliberate (test/boundaries/exports.test.ts).
 */
export type { CollectionName, SearchOptions, StoredRecord, VectorHit, VectorRecord, VectorStore } from './vector-store.js';
export { isValidVector } from './vector-store.js';
export { LanceVectorStore } from './lance-vector-store.js';
export { WeaviateVectorStore } from './weaviate-vector-store.js';
export { VectorStoreUnavailableError } from './vector-store-unavailable-error.js';
export { createVectorStore } from './create-vector-store.js';
export { CardIndex, cardId, cardText, type CardOnDisk } from './card-index.js';
export { SemanticService, type SemanticServiceOptions } from './semantic-service.js';
export { createSemanticLayerApp, MCP_PATH, type SemanticLayerAppOptions } from './create-semantic-layer.js';
export { startSemanticLayer, type RunningSemanticLayer } from './start-semantic-layer.js';
export { loadSemanticConfig, SEMANTIC_DEFAULTS, type SemanticConfig } from './semantic-config.js';
export { mcpTools } from './mcp-tools.js';
export { MCPToolkit, DEFAULT_SEMANTIC_LAYER_URL, type MCPToolkitOptions, type ToolOutcome } from './mcp-toolkit.js';
export { TOOL_NAMES, type AgentCardJson, type DocumentHit } from './tool-contract.js';
export {
  answerFromDocuments,
  contextFrom,
  ragPrompt,
  registerRagStep,
  NO_INFORMATION_ANSWER,
  RAG_MAX_RESULTS,
  type DocumentSearch,
  type RagSource,
} from './rag.js';

export { OllamaEmbedder, type Embedder } from '../llm/embedder.js';
export { HnswVectorIndex, HNSW_SETTINGS } from '../core/vectors/hnsw-vector-index.js';
export type { VectorIndex } from '../core/vectors/vector-index.js';
