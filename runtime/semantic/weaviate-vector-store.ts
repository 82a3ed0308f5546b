import { Filters, type Collection, type WeaviateClient } from 'weaviate-client';
import { BadRequestError } from '../core/errors/bad-request-error.js';
import { FrameworkError } from '../core/framework-error.js';
import type { Logger } from '../core/logger.js';
import { VectorStoreUnavailableError } from './vector-store-unavailable-error.js';
import {
  isValidVector,
  type CollectionName,
  type SearchOptions,
  type StoredRecord,
  type VectorHit,
  type VectorRecord,
  type VectorStore,
} from './vector-store.js';
import { describeError, openWeaviateClient, parseWeaviateUrl, probeWeaviate, type WeaviateEndpoint } from './weaviate-connection.js';
import { fromWeaviateObject, hitFromWeaviateObject, objectVector, tagFilter, toWeaviateObject, weaviateUuid } from './weaviate-objects.js';
import { schemaGaps, WEAVIATE_CLASSES, WEAVIATE_PROPERTY_NAMES, weaviateClassSchema } from './weaviate-schema.js';

export interface WeaviateVectorStoreOptions {
  /** `VECTOR_STORE_URL`, e.g. `http://127.0.0.1:8081` (REST); gRPC is on the same host. */
  url: string;
  /** Weaviate's gRPC port (default 50051); the client queries and writes over gRPC. */
  grpcPort?: number;
  /** Sent as `Authorization: Bearer <key>` when the server requires API keys. */
  apiKey?: string;
  logger?: Logger;
  /** Bound on the readiness probe, on connecting and on each query (default 10 000); writes get at least 60 s. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const COLLECTIONS: readonly CollectionName[] = ['agent_cards', 'documents'];

/**
 * The Semantic Layer's vector store on a Weaviate server: agent cards in class
 * `AgentCard`, documents in class `Document`, our vectors (no vectorizer),
 * cosine distance. Object ids are UUIDs derived from our ids (kept in
 * `card_id`). Every failure to reach or use Weaviate rejects with
 * `VectorStoreUnavailableError` (`store_unavailable`) naming the URL; a bad
 * vector rejects with `BadRequestError` (`invalid_request`) before any request.
 *
 * @example
 * const store = await WeaviateVectorStore.connect({ url: 'http://127.0.0.1:8081' });
 * await store.upsert('agent_cards', [{ id: 'weather', vector, content: 'Weather agent', metadata: {}, uri: 'file:///cards/weather.json' }]);
 * const hits = await store.search('agent_cards', queryVector, { limit: 3 });
 * await store.close();
 */
export class WeaviateVectorStore implements VectorStore {
  readonly kind = 'weaviate';
  readonly location: string;
  readonly #client: WeaviateClient;
  readonly #endpoint: WeaviateEndpoint;
  readonly #timeoutMs: number;
  readonly #logger: Logger | undefined;
  #dimensions: number | undefined;
  #closed = false;

  private constructor(options: { client: WeaviateClient; endpoint: WeaviateEndpoint; timeoutMs: number; logger: Logger | undefined }) {
    this.#client = options.client;
    this.#endpoint = options.endpoint;
    this.location = options.endpoint.baseUrl;
    this.#timeoutMs = options.timeoutMs;
    this.#logger = options.logger;
  }

  /**
   * Checks that Weaviate is ready, connects (REST and gRPC), creates the
   * `AgentCard` and `Document` classes when missing (adding any of our
   * properties an existing class lacks), and reads the vector dimension from
   * the stored data. Rejects with `ConfigError` on a malformed URL and with
   * `VectorStoreUnavailableError` when Weaviate is not there, within about
   * `timeoutMs` per step.
   *
   * @example
   * const store = await WeaviateVectorStore.connect({ url: process.env.VECTOR_STORE_URL ?? 'http://127.0.0.1:8081', timeoutMs: 5000 });
   */
  static async connect(options: WeaviateVectorStoreOptions): Promise<WeaviateVectorStore> {
    const endpoint = parseWeaviateUrl({ url: options.url, grpcPort: options.grpcPort });
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const unavailable = (detail: string, cause?: unknown) => new VectorStoreUnavailableError({ kind: 'weaviate', location: endpoint.baseUrl, detail, cause });

    // Probe first: a plain HTTP check fails fast and clearly, before the client opens a gRPC channel.
    const probe = await probeWeaviate({ baseUrl: endpoint.baseUrl, timeoutMs });
    if (!probe.ready) throw unavailable(`not ready (${probe.detail}). Start Weaviate or fix VECTOR_STORE_URL.`);

    let client: WeaviateClient;
    try {
      client = await openWeaviateClient({ endpoint, apiKey: options.apiKey, timeoutMs });
    } catch (cause) {
      throw unavailable(`could not connect (REST ${endpoint.baseUrl}, gRPC ${endpoint.grpcHost}:${endpoint.grpcPort}): ${describeError(cause)}`, cause);
    }

    const store = new WeaviateVectorStore({ client, endpoint, timeoutMs, logger: options.logger });
    try {
      for (const collection of COLLECTIONS) await store.#ensureClass(collection);
      await store.#readDimensions();
    } catch (cause) {
      await client.close().catch(() => undefined);
      throw FrameworkError.isInstance(cause) ? cause : unavailable(`could not prepare the AgentCard and Document classes: ${describeError(cause)}`, cause);
    }
    options.logger?.info('weaviate vector store connected', {
      url: endpoint.baseUrl,
      grpc: `${endpoint.grpcHost}:${endpoint.grpcPort}`,
      dimensions: store.#dimensions,
    });
    return store;
  }

  /**
   * Wraps a client you opened yourself (for example with `skipInitChecks`),
   * with no readiness check, no class creation and no dimension discovery:
   * the dimension is then fixed by `dimensions` or by the first write.
   *
   * @example
   * const client = await weaviate.connectToCustom({ httpHost: '127.0.0.1', httpPort: 8081, skipInitChecks: true });
   * const store = WeaviateVectorStore.fromClient({ client, url: 'http://127.0.0.1:8081' });
   */
  static fromClient(options: { client: WeaviateClient; url: string; dimensions?: number; timeoutMs?: number; logger?: Logger }): WeaviateVectorStore {
    const store = new WeaviateVectorStore({
      client: options.client,
      endpoint: parseWeaviateUrl({ url: options.url }),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      logger: options.logger,
    });
    store.#dimensions = options.dimensions;
    return store;
  }

  get dimensions(): number | undefined {
    return this.#dimensions;
  }

  async upsert(collection: CollectionName, records: readonly VectorRecord[]): Promise<void> {
    if (records.length === 0) return;
    const dimensions = this.#dimensions ?? records[0]?.vector.length;
    for (const record of records) {
      if (!isValidVector(record.vector, dimensions)) {
        throw new BadRequestError({
          code: 'invalid_request',
          message: `Refused to store "${record.id}" in ${collection}: its vector must be non-empty, finite, not all zeros and ${dimensions} long (got ${record.vector.length}). Nothing of this batch was written.`,
        });
      }
    }
    await this.#run(`writing ${records.length} object(s) to ${WEAVIATE_CLASSES[collection]}`, async () => {
      const result = await this.#collection(collection).data.insertMany(records.map((record) => toWeaviateObject({ record })));
      if (result.hasErrors) {
        const [index, error] = Object.entries(result.errors)[0] ?? [];
        const id = index === undefined ? undefined : records[Number(index)]?.id;
        throw new Error(`${Object.keys(result.errors).length} object(s) refused, first "${id}": ${error?.message}`);
      }
    });
    this.#dimensions ??= dimensions;
  }

  async search(collection: CollectionName, vector: readonly number[], options: SearchOptions): Promise<VectorHit[]> {
    if (!isValidVector(vector, this.#dimensions)) {
      throw new BadRequestError({
        code: 'invalid_request',
        message: `The query vector must be non-empty, finite, not all zeros${this.#dimensions === undefined ? '' : ` and ${this.#dimensions} long`} (got ${vector.length}).`,
      });
    }
    if (options.limit <= 0) return [];
    return this.#run(`searching ${WEAVIATE_CLASSES[collection]}`, async () => {
      const result = await this.#collection(collection).query.nearVector([...vector], {
        limit: options.limit,
        filters: tagFilter({ filter: options.filter }),
        returnMetadata: ['distance'],
        returnProperties: WEAVIATE_PROPERTY_NAMES,
      });
      return result.objects.map((object) => hitFromWeaviateObject({ object })).sort((a, b) => b.score - a.score);
    });
  }

  async get(collection: CollectionName, id: string): Promise<StoredRecord | undefined> {
    return this.#run(`reading "${id}" from ${WEAVIATE_CLASSES[collection]}`, async () => {
      const handle = this.#collection(collection);
      const object = await handle.query.fetchObjectById(weaviateUuid({ id }), { includeVector: true, returnProperties: WEAVIATE_PROPERTY_NAMES });
      if (object) return fromWeaviateObject({ object });
      // Objects written by other tools may have other UUIDs: look for our id in card_id.
      const found = await handle.query.fetchObjects({
        limit: 1,
        filters: handle.filter.byProperty('card_id').equal(id),
        includeVector: true,
        returnProperties: WEAVIATE_PROPERTY_NAMES,
      });
      const [first] = found.objects;
      return first ? fromWeaviateObject({ object: first }) : undefined;
    });
  }

  async list(collection: CollectionName): Promise<StoredRecord[]> {
    return this.#run(`listing ${WEAVIATE_CLASSES[collection]}`, async () => {
      const records: StoredRecord[] = [];
      for await (const object of this.#collection(collection).iterator({ includeVector: true, returnProperties: WEAVIATE_PROPERTY_NAMES })) {
        records.push(fromWeaviateObject({ object }));
      }
      return records;
    });
  }

  async delete(collection: CollectionName, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.#run(`deleting ${ids.length} object(s) from ${WEAVIATE_CLASSES[collection]}`, async () => {
      const handle = this.#collection(collection);
      await handle.data.deleteMany(
        Filters.or(handle.filter.byId().containsAny(ids.map((id) => weaviateUuid({ id }))), handle.filter.byProperty('card_id').containsAny([...ids])),
      );
    });
  }

  async count(collection: CollectionName): Promise<number> {
    return this.#run(`counting ${WEAVIATE_CLASSES[collection]}`, async () => (await this.#collection(collection).aggregate.overAll()).totalCount);
  }

  async ready(): Promise<boolean> {
    if (this.#closed) return false;
    return (await probeWeaviate({ baseUrl: this.#endpoint.baseUrl, timeoutMs: this.#timeoutMs })).ready;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#client.close();
  }

  #collection(collection: CollectionName): Collection {
    return this.#client.collections.use(WEAVIATE_CLASSES[collection]);
  }

  /** Runs one operation; anything that is not already ours becomes `store_unavailable` naming the URL. */
  async #run<T>(what: string, operation: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new VectorStoreUnavailableError({ kind: 'weaviate', location: this.location, detail: `${what}: the store was closed` });
    try {
      return await operation();
    } catch (cause) {
      if (FrameworkError.isInstance(cause)) throw cause;
      this.#logger?.warn('weaviate request failed', { url: this.location, what, error: describeError(cause) });
      throw new VectorStoreUnavailableError({ kind: 'weaviate', location: this.location, detail: `${what} failed: ${describeError(cause)}`, cause });
    }
  }

  /** Creates the class when missing; on an existing one adds our missing properties and warns about tokenization. */
  async #ensureClass(collection: CollectionName): Promise<void> {
    const name = WEAVIATE_CLASSES[collection];
    const collections = this.#client.collections;
    if (!(await collections.exists(name))) {
      try {
        await collections.createFromSchema(weaviateClassSchema({ collection }));
        this.#logger?.info('weaviate class created', { url: this.location, class: name });
        return;
      } catch (error) {
        // Another process may have created it in the meantime.
        if (!(await collections.exists(name))) throw error;
      }
    }
    const config = await collections.export(name);
    const gaps = schemaGaps({ properties: config.properties });
    for (const spec of gaps.missing) {
      await this.#collection(collection).config.addProperty({ ...spec });
      this.#logger?.info('weaviate property added', { url: this.location, class: name, property: spec.name });
    }
    if (gaps.mistokenized.length > 0) {
      this.#logger?.warn('weaviate class does not tokenize these filter properties as whole fields; filters may match loosely', {
        url: this.location,
        class: name,
        properties: gaps.mistokenized,
      });
    }
  }

  /** The dimension of the first valid vector stored in either class, if any. */
  async #readDimensions(): Promise<void> {
    for (const collection of COLLECTIONS) {
      const result = await this.#collection(collection).query.fetchObjects({ limit: 20, includeVector: true, returnProperties: ['card_id'] });
      for (const object of result.objects) {
        const vector = objectVector({ object });
        if (isValidVector(vector)) {
          this.#dimensions = vector?.length;
          return;
        }
      }
    }
  }
}
