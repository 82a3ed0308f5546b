import type { Logger } from '../core/logger.js';
import { LanceVectorStore } from './lance-vector-store.js';
import type { SemanticConfig } from './semantic-config.js';
import { tracedVectorStore } from './traced-vector-store.js';
import type { VectorStore } from './vector-store.js';
import { WeaviateVectorStore } from './weaviate-vector-store.js';

/** The vector store the configuration names: LanceDB in VECTOR_STORE_DIR (default), or Weaviate at VECTOR_STORE_URL. */
export async function createVectorStore(
  config: Pick<SemanticConfig, 'vectorStore' | 'storeDir' | 'vectorStoreUrl'>,
  options: { logger?: Logger } = {},
): Promise<VectorStore> {
  // Searches timed and traced, collection sizes counted (/metrics).
  if (config.vectorStore === 'weaviate') {
    return tracedVectorStore(await WeaviateVectorStore.connect({ url: config.vectorStoreUrl ?? '', ...(options.logger ? { logger: options.logger } : {}) }));
  }
  return tracedVectorStore(await LanceVectorStore.open({ dir: config.storeDir, ...(options.logger ? { logger: options.logger } : {}) }));
}
