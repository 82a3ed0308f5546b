import { DEFAULT_CHAT_MODEL, DEFAULT_EMBEDDING_MODEL } from '../../../runtime/model/known-models.js';
import { ModelStore, resolveModelsDir, type StoredModel } from '../../../runtime/model/model-store.js';
import { pullModel } from '../../../runtime/model/pull-model.js';

/**
 * The default chat model from the machine's model store, pulled on first use
 * (CI pulls it before the tests, so this is a manifest read there).
 */
export async function defaultModelStore(): Promise<{ store: ModelStore; model: StoredModel }> {
  const store = new ModelStore({ dir: resolveModelsDir() });
  const model = (await store.get(DEFAULT_CHAT_MODEL)) ?? (await pullModel({ store, name: DEFAULT_CHAT_MODEL }));
  return { store, model };
}

/** The default embedding model (all-minilm) from the machine's model store, pulled on first use. */
export async function defaultEmbeddingStore(): Promise<{ store: ModelStore; model: StoredModel }> {
  const store = new ModelStore({ dir: resolveModelsDir() });
  const model = (await store.get(DEFAULT_EMBEDDING_MODEL)) ?? (await pullModel({ store, name: DEFAULT_EMBEDDING_MODEL }));
  return { store, model };
}
