import type { CollectionName, StoredRecord, VectorStore } from './vector-store.js';

/**
 * A store opened at its first use, for a service whose idle process should
 * not hold it (LanceDB, Apache Arrow and the in-memory mirrors are about
 * 30 MB resident before any data). Reads of a collection that has nothing
 * stored (`stored(collection)` false, e.g. no table on disk) are answered
 * without opening it: empty, as the opened store would answer. Everything
 * else opens it once; a failed open is retried at the next use and its
 * error reaches the caller. `ready()` before the store is opened answers
 * `openable()` (e.g. the directory is there and writable). Closing a store
 * never opened does nothing; using it after `close()` is `closedError()`.
 *
 * @example
 * const store = lazyVectorStore({ kind: 'lancedb', location: dir, open: () => LanceVectorStore.open({ dir }), stored: tableExists, openable: dirWritable, closedError });
 */
export function lazyVectorStore(options: {
  kind: string;
  location: string;
  open: () => Promise<VectorStore>;
  /** Whether `collection` may hold records; false only when it certainly holds none. */
  stored: (collection: CollectionName) => Promise<boolean>;
  /** `ready()` while the store is not open. */
  openable: () => Promise<boolean>;
  /** What a use after `close()` throws when the store was never opened. */
  closedError: () => Error;
}): VectorStore & { readonly opened: boolean } {
  let store: VectorStore | undefined;
  let opening: Promise<VectorStore> | undefined;
  let closed = false;
  const open = (): Promise<VectorStore> => {
    if (store) return Promise.resolve(store);
    if (closed && !opening) return Promise.reject(options.closedError());
    opening ??= options.open().then(
      (opened) => (store = opened),
      (error: unknown) => {
        opening = undefined;
        throw error;
      },
    );
    return opening;
  };
  /** The opened store, or undefined when `collection` holds nothing and the store need not open for a read. */
  const forRead = async (collection: CollectionName): Promise<VectorStore | undefined> =>
    store || opening || closed || (await options.stored(collection)) ? open() : undefined;
  return {
    kind: options.kind,
    location: options.location,
    get opened() {
      return store !== undefined;
    },
    get dimensions() {
      return store?.dimensions;
    },
    upsert: async (collection, records) => (await open()).upsert(collection, records),
    search: async (collection, vector, searchOptions) => (await open()).search(collection, vector, searchOptions),
    get: async (collection, id) => (await forRead(collection))?.get(collection, id),
    list: async (collection): Promise<StoredRecord[]> => (await forRead(collection))?.list(collection) ?? [],
    delete: async (collection, ids) => (await open()).delete(collection, ids),
    count: async (collection) => (await forRead(collection))?.count(collection) ?? 0,
    ready: async () => (store ? store.ready() : !closed && (await options.openable())),
    close: async () => {
      closed = true;
      const opened = store ?? (await opening?.catch(() => undefined));
      await opened?.close();
    },
  };
}
