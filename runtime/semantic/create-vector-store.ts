import { access, constants } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../core/logger.js';
import { checkLanceDbOpenable } from './lance-runtime.js';
import { lazyVectorStore } from './lazy-vector-store.js';
import { VectorStoreUnavailableError } from './vector-store-unavailable-error.js';
import type { SemanticConfig } from './semantic-config.js';
import { tracedVectorStore } from './traced-vector-store.js';
import type { VectorStore } from './vector-store.js';

/**
 * The vector store the configuration names: LanceDB in VECTOR_STORE_DIR (default), or Weaviate at VECTOR_STORE_URL.
 * Only the chosen backend's module is imported (Weaviate's client, with gRPC and graphql, is about 1,000 modules).
 * LanceDB is checked at once (installed, directory writable) but opened at its first use: reading a
 * collection that has no table on disk answers empty without opening it, so an idle service (health
 * included) does not hold LanceDB and Arrow (about 30 MB resident).
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
  const dir = config.storeDir;
  await checkLanceDbOpenable({ dir });
  // Only a certain absence counts as nothing stored; any other error opens the store, which reports it.
  const tableThere = (collection: string) =>
    access(join(dir, `${collection}.lance`)).then(
      () => true,
      (error: NodeJS.ErrnoException) => error.code !== 'ENOENT',
    );
  return tracedVectorStore(
    lazyVectorStore({
      kind: 'lancedb',
      location: dir,
      open: async () => {
        const { LanceVectorStore } = await import('./lance-vector-store.js');
        return LanceVectorStore.open({ dir, ...(options.logger ? { logger: options.logger } : {}) });
      },
      // LanceDB keeps a table as `<name>.lance` in the directory.
      stored: tableThere,
      openable: () =>
        access(dir, constants.R_OK | constants.W_OK).then(
          () => true,
          () => false,
        ),
      closedError: () => new VectorStoreUnavailableError({ kind: 'lancedb', location: dir, detail: 'the store was closed' }),
    }),
  );
}
