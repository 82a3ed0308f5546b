import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import { createVectorStore } from '../../runtime/semantic/create-vector-store.js';
import { LanceVectorStore } from '../../runtime/semantic/lance-vector-store.js';
import { lazyVectorStore } from '../../runtime/semantic/lazy-vector-store.js';
import type { CollectionName, VectorRecord, VectorStore } from '../../runtime/semantic/vector-store.js';
import { VectorStoreUnavailableError } from '../../runtime/semantic/vector-store-unavailable-error.js';

let dir: string;
const stores: VectorStore[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lazy-store-'));
});

afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await rm(dir, { recursive: true, force: true });
});

const card: VectorRecord = {
  id: 'card-1',
  vector: [0.6, 0.8, 0],
  content: '{"name":"planner"}',
  metadata: { name: 'planner' },
  uri: 'file:///cards/planner.json',
};

/** A lazy LanceDB store in `path` that counts how often it was opened. */
function lazyLance(path: string): VectorStore & { readonly opened: boolean; opens: number } {
  let opens = 0;
  const store = lazyVectorStore({
    kind: 'lancedb',
    location: path,
    open: () => {
      opens++;
      return LanceVectorStore.open({ dir: path });
    },
    stored: (collection: CollectionName) =>
      import('node:fs/promises').then(({ access }) =>
        access(join(path, `${collection}.lance`)).then(
          () => true,
          () => false,
        ),
      ),
    openable: async () => true,
    closedError: () => new VectorStoreUnavailableError({ kind: 'lancedb', location: path, detail: 'the store was closed' }),
  });
  stores.push(store);
  return Object.defineProperty(store, 'opens', { get: () => opens }) as typeof store & { opens: number };
}

describe('lazyVectorStore', () => {
  it('answers reads of collections with nothing stored without opening, and opens once for a write', async () => {
    const store = lazyLance(dir);
    expect(await store.list('agent_cards')).toEqual([]);
    expect(await store.count('documents')).toBe(0);
    expect(await store.get('agent_cards', 'card-1')).toBeUndefined();
    expect(await store.ready()).toBe(true);
    expect(store.dimensions).toBeUndefined();
    expect(store.opened).toBe(false);

    await Promise.all([store.upsert('agent_cards', [card]), store.count('agent_cards')]);
    expect(store.opened).toBe(true);
    expect(store.opens).toBe(1);
    expect(store.dimensions).toBe(3);
    expect((await store.list('agent_cards')).map((record) => [record.id, record.hasVector])).toEqual([['card-1', true]]);
    expect((await store.search('agent_cards', [0.6, 0.8, 0], { limit: 1 }))[0]?.id).toBe('card-1');
  });

  it('opens for a read when the collection has a table on disk: what a restarted service stored is reported', async () => {
    const first = await LanceVectorStore.open({ dir });
    await first.upsert('agent_cards', [card]);
    await first.close();

    const store = lazyLance(dir);
    expect(await store.count('documents')).toBe(0); // no documents table: still not opened
    expect(store.opened).toBe(false);
    expect(await store.count('agent_cards')).toBe(1);
    expect(store.opened).toBe(true);
  });

  it('passes a failed open to the caller and tries again at the next use', async () => {
    const path = join(dir, 'store');
    await writeFile(path, 'a file where the store directory should be');
    const store = lazyLance(path);
    const error = await store.upsert('agent_cards', [card]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(FrameworkError.isInstance(error) && error.code).toBe('store_unavailable');
    expect(store.opened).toBe(false);

    await rm(path);
    await store.upsert('agent_cards', [card]);
    expect(store.opens).toBe(2);
    expect(await store.count('agent_cards')).toBe(1);
  });

  it('closing a store never opened opens nothing; a later use is refused as closed', async () => {
    const store = lazyLance(dir);
    await store.close();
    expect(store.opens).toBe(0);
    await expect(store.list('agent_cards')).rejects.toThrow(/is unavailable: the store was closed/);
    await expect(store.upsert('agent_cards', [card])).rejects.toThrow(/the store was closed/);
    expect(await store.ready()).toBe(false);
    expect(store.opens).toBe(0);
  });
});

describe('createVectorStore (LanceDB)', () => {
  it('checks the directory at once, before anything opens it', async () => {
    const file = join(dir, 'not-a-directory');
    await writeFile(file, '');
    const error = await createVectorStore({ vectorStore: 'lancedb', storeDir: join(file, 'vectors'), vectorStoreUrl: undefined }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(VectorStoreUnavailableError);
    expect((error as Error).message).toMatch(/The lancedb vector store at .*not-a-directory\/vectors is unavailable: could not open the directory: /);
  });

  it('is ready while unopened only when the directory is writable', async () => {
    const store = await createVectorStore({ vectorStore: 'lancedb', storeDir: dir, vectorStoreUrl: undefined });
    stores.push(store);
    expect(await store.ready()).toBe(true);
    expect(await store.list('agent_cards')).toEqual([]);
    if (process.getuid?.() !== 0) {
      await chmod(dir, 0o500);
      expect(await store.ready()).toBe(false);
      await chmod(dir, 0o700);
    }
  });
});
