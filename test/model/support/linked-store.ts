import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelStore, type StoredModel } from '../../../runtime/model/model-store.js';
import { defaultModelStore } from './default-model.js';

/**
 * A model store of its own in a temp folder holding the machine's real
 * default chat model (its weights symlinked, not copied), so a test may
 * create, copy and delete models without touching the shared store.
 */
export async function linkedStore(): Promise<{ store: ModelStore; model: StoredModel; remove(): Promise<void> }> {
  const { model } = await defaultModelStore();
  const dir = await mkdtemp(join(tmpdir(), 'models-linked-'));
  const store = new ModelStore({ dir });
  await mkdir(store.blobsDir, { recursive: true });
  await symlink(model.path, join(store.blobsDir, model.file));
  const { path: _path, ...manifest } = model;
  return { store, model: await store.save(manifest), remove: () => rm(dir, { recursive: true, force: true }) };
}
