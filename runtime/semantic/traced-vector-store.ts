import { gauge, histogram } from '../core/telemetry/service-metrics.js';
import { inSpan, SPAN_KIND } from '../core/telemetry/tracing.js';
import type { CollectionName, VectorStore } from './vector-store.js';

const searchSeconds = histogram('vector_search_duration_seconds', 'Nearest-neighbour searches of the vector store, by store kind.', {
  labelNames: ['store'],
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
});

/** Records per collection, as last counted (a search, an upsert or a delete counts its collection again). */
const indexSize = gauge('vector_index_records', 'Records in each collection of the vector store, as last counted.', { labelNames: ['collection'] });

/**
 * The store with every search timed (`vector_search_duration_seconds`) and,
 * when tracing is on, a CLIENT span per search (`db.collection.name`, `k`,
 * hits); collection sizes go to `vector_index_records` after writes.
 */
export function tracedVectorStore(store: VectorStore): VectorStore {
  const recount = async (collection: CollectionName) => indexSize.labels(collection).set(await store.count(collection));
  return {
    get kind() {
      return store.kind;
    },
    get location() {
      return store.location;
    },
    get dimensions() {
      return store.dimensions;
    },
    upsert: async (collection, records) => {
      await store.upsert(collection, records);
      await recount(collection);
    },
    search: (collection, vector, options) => {
      const attributes = { 'db.system.name': store.kind, 'db.operation.name': 'search', 'db.collection.name': collection, 'vector.k': options.limit };
      return inSpan(`search ${collection}`, { kind: SPAN_KIND.CLIENT, attributes }, async (span) => {
        const end = searchSeconds.startTimer({ store: store.kind });
        try {
          const hits = await store.search(collection, vector, options);
          span.setAttribute('vector.hits', hits.length);
          return hits;
        } finally {
          end();
        }
      });
    },
    get: (collection, id) => store.get(collection, id),
    list: (collection) => store.list(collection),
    delete: async (collection, ids) => {
      await store.delete(collection, ids);
      await recount(collection);
    },
    count: (collection) => store.count(collection),
    ready: () => store.ready(),
    close: () => store.close(),
  };
}
