import type { Logger } from '../core/logger.js';
import type { SemanticConfig } from './semantic-config.js';
import { tracedVectorStore } from './traced-vector-store.js';
import type { VectorStore } from './vector-store.js';

/**
 * The vector store the configuration names: LanceDB in VECTOR_STORE_DIR (default), or Weaviate at VECTOR_STORE_URL.
 * Only the chosen backend's module is imported (Weaviate's client, with gRPC and graphql, is about 1,000 modules).
 */
export async function createVectorStore(
  config: Pick<SemanticConfig, 'vectorStore' | 'storeDir' | 'vectorStoreUrl'>,
  options: { logger?: Logger } = {},
): Promise<VectorStore> {
  // Searches timed and traced, collection sizes counted (/metrics).
  if (config.vectorStore === 'weaviate') {
    const { WeaviateVectorStore } = await import('./weaviate-vector-store.js');
    return tracedVectorStore(await WeaviateVectorStore.connect({ url: config.vectorStoreUrl ?? '', ...(options.logger ? { logger: options.logger } : {}) }));
  }
  const { LanceVectorStore } = await import('./lance-vector-store.js');
  return tracedVectorStore(await LanceVectorStore.open({ dir: config.storeDir, ...(options.logger ? { logger: options.logger } : {}) }));
}
