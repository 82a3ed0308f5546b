import { startModelServer, type RunningModelServer } from '../../runtime/model/start-model-server.js';
import { defaultEmbeddingStore, defaultModelStore } from '../model/support/default-model.js';

/** The real model runtime serving all-minilm (and smollm2), on a free port or `port`. */
export async function startEmbeddings(port = 0): Promise<RunningModelServer> {
  await defaultModelStore();
  const { store } = await defaultEmbeddingStore();
  return startModelServer({ store, host: '127.0.0.1', port });
}
