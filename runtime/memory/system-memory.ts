import { BadRequestError } from '../core/errors/bad-request-error.js';
import { ConfigError } from '../core/errors/config-error.js';
import { StoreUnavailableError } from '../core/errors/store-unavailable-error.js';
import { FrameworkError } from '../core/framework-error.js';
import { errorFields, silentLogger, type Logger } from '../core/logger.js';
import type { Embedder } from '../llm/embedder.js';
import type { MemoryFilters, TagFilter } from './memory-filters.js';
import { promptMessages, type MemoryPromptRequest, type MemoryPromptResponse } from './memory-prompt.js';
import { completeRecord, type MemoryRecord, type MemoryRecordResults } from './memory-records.js';
import type { AckResponse, CreateMemoriesRequest, CreateMemoriesResponse, MemoryHealth } from './memory-responses.js';
import { memoryQuery, type MemoryQuery, type SearchRequest } from './memory-search.js';
import type { MemoryStore } from './memory-store.js';
import { workingMemoryFromUpdate, workingMemoryResponse, type SessionRef, type WorkingMemoryResponse, type WorkingMemoryUpdate } from './working-memory.js';

/** The codes of `ModelRuntimeError`: the model runtime is down or failed. */
const MODEL_FAILURES = new Set(['model_runtime_unavailable', 'model_error']);

/** Texts embedded per call to the model runtime. */
const EMBED_BATCH = 64;

export interface SystemMemoryOptions {
  store: MemoryStore;
  /** Embeds record texts and queries; its `model` must be the store's `embeddingModel`. */
  embedder: Embedder;
  logger?: Logger;
  /** Clock; default `() => new Date()`. */
  now?: () => Date;
}

const eq = (value: string | undefined): TagFilter | undefined => (value === undefined ? undefined : { eq: [value] });

/**
 * What the memory service does, transport aside: working memory per session,
 * long-term memories embedded on the way in and searched by similarity, and
 * prompts that combine both. Inputs arrive parsed (see the schemas); failures
 * are `FrameworkError`s (`not_found`, `store_unavailable`,
 * `model_runtime_unavailable`, ...).
 *
 * @example
 * const memory = new SystemMemory({ store, embedder: new OllamaEmbedder({ host: 'http://127.0.0.1:11434', model: 'all-minilm' }) });
 * await memory.createMemories(CreateMemoriesRequestSchema.parse({ memories: [{ id: 'm1', text: 'The user drinks green tea' }] }));
 * const found = await memory.search(SearchRequestSchema.parse({ text: 'What does the user drink?' }));
 */
export class SystemMemory {
  readonly store: MemoryStore;
  readonly embedder: Embedder;
  readonly #logger: Logger;
  readonly #now: () => Date;

  constructor(options: SystemMemoryOptions) {
    if (options.embedder.model !== options.store.embeddingModel) {
      throw new ConfigError({
        context: 'The embedder and the memory store disagree',
        issues: [
          { variable: 'options.embedder', message: `uses model "${options.embedder.model}" but the store holds vectors of "${options.store.embeddingModel}"` },
        ],
      });
    }
    this.store = options.store;
    this.embedder = options.embedder;
    this.#logger = options.logger ?? silentLogger;
    this.#now = options.now ?? (() => new Date());
  }

  /** The session's working memory; a 404 `not_found` when it has none (as AMS). */
  async getWorkingMemory(options: SessionRef & { recentMessagesLimit?: number | undefined }): Promise<WorkingMemoryResponse> {
    const memory = await this.store.getWorkingMemory(options);
    if (memory === undefined) {
      throw new BadRequestError({
        code: 'not_found',
        message: `Session ${options.sessionId} not found${scopeText(options)}; PUT /v1/working-memory/${encodeURIComponent(options.sessionId)} creates it.`,
      });
    }
    return workingMemoryResponse({ memory, recentMessagesLimit: options.recentMessagesLimit });
  }

  /**
   * Replaces the session's working memory. Its structured `memories` not yet
   * persisted are promoted to long-term memory first (as AMS does in the
   * background); if the model runtime is down they stay unpersisted
   * (`persisted_at: null`) and are promoted by a later PUT.
   */
  async putWorkingMemory(options: {
    sessionId: string;
    update: WorkingMemoryUpdate;
    namespace?: string | undefined;
    userId?: string | undefined;
  }): Promise<WorkingMemoryResponse> {
    const { sessionId, update } = options;
    if (update.session_id !== undefined && update.session_id !== sessionId) {
      throw new BadRequestError({
        code: 'invalid_request',
        message: `The body's session_id "${update.session_id}" is not the session of the path ("${sessionId}").`,
      });
    }
    const namespace = agree('namespace', update.namespace, options.namespace);
    const userId = agree('user_id', update.user_id, options.userId);
    const at = this.#now().toISOString();
    const memory = workingMemoryFromUpdate({ sessionId, update: { ...update, namespace, user_id: userId }, at });
    const pending = memory.memories.filter((record) => record.persisted_at === null);
    if (pending.length > 0) {
      try {
        await this.#storeRecords({ records: pending.map((record) => ({ ...record, persisted_at: at })), deduplicate: true });
        for (const record of pending) record.persisted_at = at;
      } catch (error) {
        if (!FrameworkError.isInstance(error) || !MODEL_FAILURES.has(error.code)) throw error;
        this.#logger.warn('working-memory records not promoted to long-term memory; a later PUT retries', {
          session: sessionId,
          count: pending.length,
          ...errorFields(error),
        });
      }
    }
    await this.store.putWorkingMemory(memory);
    return workingMemoryResponse({ memory });
  }

  async deleteWorkingMemory(ref: SessionRef): Promise<AckResponse> {
    await this.store.deleteWorkingMemory(ref);
    return { status: 'ok' };
  }

  /** Embeds and stores long-term memories (at once, not in the background as AMS). */
  async createMemories(request: CreateMemoriesRequest): Promise<CreateMemoriesResponse> {
    const at = this.#now().toISOString();
    const records = request.memories.map((input) => ({ ...completeRecord({ record: input, at }), persisted_at: at }));
    const outcomes = await this.#storeRecords({ records, deduplicate: request.deduplicate });
    return { status: 'ok', ids: outcomes.map((o) => o.id), deduplicated: outcomes.map((o) => o.deduplicated) };
  }

  /** Semantic search (or a filtered listing when there is no text), nearest first. */
  search(request: SearchRequest): Promise<MemoryRecordResults> {
    return this.#search(memoryQuery(request));
  }

  async deleteMemories(ids: readonly string[]): Promise<AckResponse> {
    const count = await this.store.deleteRecords(ids);
    return { status: `ok, deleted ${count} memories` };
  }

  /**
   * The messages to send to a model for `query`: the session's working
   * memory and/or the related long-term memories. A long-term search is kept
   * inside the session's namespace and user unless it names its own.
   */
  async prompt(request: MemoryPromptRequest): Promise<MemoryPromptResponse> {
    const session = request.session ?? undefined;
    const ref = session ? { sessionId: session.session_id, namespace: session.namespace, userId: session.user_id } : undefined;
    const workingMemory = ref ? await this.store.getWorkingMemory(ref) : undefined;
    let longTerm: MemoryRecordResults | undefined;
    const search = request.long_term_search;
    if (search) {
      const query: MemoryQuery =
        search === true
          ? {
              text: request.query,
              // As AMS: the session's own memories are already in its working memory.
              filters: withScope({ filters: ref ? { session_id: { ne: [ref.sessionId] } } : {}, ref }),
              distanceThreshold: undefined,
              limit: 20,
              offset: 0,
            }
          : (() => {
              const base = memoryQuery(search);
              return { ...base, text: request.query, filters: withScope({ filters: base.filters, ref }) };
            })();
      longTerm = await this.#search(query);
    }
    return {
      messages: promptMessages({ query: request.query, workingMemory, longTerm }),
      long_term_memories: longTerm && longTerm.total > 0 ? longTerm.memories : null,
    };
  }

  /** AMS's health answer plus the store's state; `healthy` false while the store cannot be reached. */
  async health(): Promise<{ healthy: boolean; body: MemoryHealth }> {
    const now = this.#now().getTime();
    try {
      await this.store.ping();
      return { healthy: true, body: { now, status: 'ok', kv_store: 'up' } };
    } catch (error) {
      if (!StoreUnavailableError.isInstance(error)) throw error;
      return { healthy: false, body: { now, status: 'degraded', kv_store: 'down', kv_url: this.store.location } };
    }
  }

  async #search(query: MemoryQuery): Promise<MemoryRecordResults> {
    const vector = query.text === '' ? undefined : (await this.#embed([query.text]))[0];
    const { hits, total } = await this.store.search({
      vector,
      filters: query.filters,
      distanceThreshold: query.distanceThreshold,
      limit: query.limit,
      offset: query.offset,
    });
    const end = query.offset + query.limit;
    return {
      memories: hits.map(({ record, dist }) => ({ ...record, dist, score: vector ? Math.max(0, 1 - dist) : null, score_type: vector ? 'semantic' : null })),
      total,
      next_offset: end < total ? end : null,
    };
  }

  async #storeRecords(options: { records: MemoryRecord[]; deduplicate: boolean }) {
    const vectors = await this.#embed(options.records.map((record) => record.text));
    return this.store.putRecords({ records: options.records.map((record, i) => ({ record, vector: vectors[i]! })), deduplicate: options.deduplicate });
  }

  async #embed(texts: readonly string[]): Promise<number[][]> {
    const vectors: number[][] = [];
    for (let at = 0; at < texts.length; at += EMBED_BATCH) vectors.push(...(await this.embedder.embed(texts.slice(at, at + EMBED_BATCH))));
    return vectors;
  }
}

/** The session's namespace and user added to `filters` where they have none. */
function withScope(options: { filters: MemoryFilters; ref: SessionRef | undefined }): MemoryFilters {
  const { filters, ref } = options;
  const namespace = filters.namespace ?? eq(ref?.namespace);
  const userId = filters.user_id ?? eq(ref?.userId);
  return { ...filters, ...(namespace ? { namespace } : {}), ...(userId ? { user_id: userId } : {}) };
}

/** A scope given both in the body and the query must be the same. */
function agree(field: string, body: string | undefined, query: string | undefined): string | undefined {
  if (body !== undefined && query !== undefined && body !== query) {
    throw new BadRequestError({
      code: 'invalid_request',
      message: `${field} is "${body}" in the body but "${query}" in the query string; send one, or the same.`,
    });
  }
  return body ?? query;
}

function scopeText(ref: SessionRef): string {
  const parts = [ref.namespace === undefined ? '' : `namespace "${ref.namespace}"`, ref.userId === undefined ? '' : `user "${ref.userId}"`].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}
