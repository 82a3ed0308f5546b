import { BadRequestError } from '../core/errors/bad-request-error.js';
import { ConfigError } from '../core/errors/config-error.js';
import { StoreUnavailableError } from '../core/errors/store-unavailable-error.js';
import { FrameworkError } from '../core/framework-error.js';
import { errorFields, silentLogger, type Logger } from '../core/logger.js';
import type { Embedder } from '../llm/embedder.js';
import { withinAccess, withListsAsEmpty, type EditMemoryRequest, type MemoryAccess, type SessionListResponse } from './memory-edits.js';
import type { MemoryFilters, TagFilter } from './memory-filters.js';
import { promptMessages, type MemoryPromptRequest, type MemoryPromptResponse } from './memory-prompt.js';
import { DEFAULT_HYBRID_ALPHA, KeywordIndex, normalizeScores, rerankWithRecency } from './memory-ranking.js';
import { completeRecord, type MemoryRecord, type MemoryRecordResult, type MemoryRecordResults } from './memory-records.js';
import type { AckResponse, CreateMemoriesRequest, CreateMemoriesResponse, MemoryHealth } from './memory-responses.js';
import { memoryQuery, type MemoryQuery, type SearchRequest } from './memory-search.js';
import type { MemoryStore } from './memory-store.js';
import {
  workingMemoryFromUpdate,
  workingMemoryResponse,
  type SessionRef,
  type WorkingMemory,
  type WorkingMemoryResponse,
  type WorkingMemoryUpdate,
} from './working-memory.js';

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
  readonly #keywords = new KeywordIndex();

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
    const memory = (await this.#findSession(options))?.memory;
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
    let namespace = agree('namespace', update.namespace, options.namespace);
    let userId = agree('user_id', update.user_id, options.userId);
    // As AMS finds a session by its id alone, a write that names less of its
    // scope goes to that session rather than silently forking a second one.
    const existing = await this.#findSession({ sessionId, namespace, userId });
    if (existing) ({ namespace, userId } = existing.ref);
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
    const found = await this.#findSession(ref);
    await this.store.deleteWorkingMemory(found?.ref ?? ref);
    return { status: 'ok' };
  }

  /** Session ids, oldest first, filtered by namespace and user when given (AMS `GET /v1/working-memory/`). */
  async listSessions(options: { namespace?: string | undefined; userId?: string | undefined; limit: number; offset: number }): Promise<SessionListResponse> {
    const { total, sessions } = await this.store.listSessions(options);
    return { sessions: sessions.map((s) => s.sessionId), total };
  }

  /** One long-term memory by id; 404 when there is none within the caller's access. */
  async getMemory(id: string, access: MemoryAccess = {}): Promise<MemoryRecord> {
    const [record] = await this.#accessible([id], access);
    if (!record) throw notFound(id);
    return withListsAsEmpty(record);
  }

  /**
   * Changes fields of a long-term memory (AMS PATCH): re-embedded when its
   * text changes, moved when its namespace or user changes; 404 when there
   * is none within the caller's access.
   */
  async updateMemory(id: string, edit: EditMemoryRequest, access: MemoryAccess = {}): Promise<MemoryRecord> {
    const [record] = await this.#accessible([id], access);
    if (!record) throw notFound(id);
    const changes = Object.fromEntries(Object.entries(edit).filter(([, value]) => value !== undefined && value !== null));
    const updated: MemoryRecord = { ...record, ...changes, updated_at: this.#now().toISOString() };
    const [owner] = await this.store.getOwners([id]);
    if (updated.namespace !== record.namespace || updated.user_id !== record.user_id) await this.store.deleteRecords([id]);
    const [outcome] = await this.#storeRecords({ records: [updated], deduplicate: false });
    if (owner !== undefined) await this.store.setOwners([id], owner);
    return withListsAsEmpty(outcome!.record);
  }

  /** Embeds and stores long-term memories (at once, not in the background as AMS). */
  async createMemories(request: CreateMemoriesRequest, access: MemoryAccess = {}): Promise<CreateMemoriesResponse> {
    const at = this.#now().toISOString();
    const records = request.memories.map((input) => ({ ...completeRecord({ record: input, at }), persisted_at: at }));
    if (access.owner !== undefined) {
      // Token mode: a record of another token is never replaced.
      const owners = await this.store.getOwners(records.map((r) => r.id));
      const taken = records.find((_, i) => owners[i] !== undefined && owners[i] !== access.owner);
      if (taken) {
        throw new FrameworkError({
          code: 'conflict',
          message: `Memory id "${taken.id}" belongs to another token's caller; choose another id (a record is never replaced from another scope).`,
        });
      }
    }
    const outcomes = await this.#storeRecords({ records, deduplicate: request.deduplicate });
    if (access.owner !== undefined)
      await this.store.setOwners(
        outcomes.filter((o) => !o.deduplicated).map((o) => o.id),
        access.owner,
      );
    return { status: 'ok', ids: outcomes.map((o) => o.id), deduplicated: outcomes.map((o) => o.deduplicated) };
  }

  /** Semantic search (or a filtered listing when there is no text), nearest first. */
  search(request: SearchRequest): Promise<MemoryRecordResults> {
    return this.#search(memoryQuery(request));
  }

  /**
   * Deletes long-term memories by id, only those within the caller's access
   * (its token's own records in token mode, the namespace / user when given):
   * another scope's record counts as not found and stays.
   */
  async deleteMemories(ids: readonly string[], access: MemoryAccess = {}): Promise<AckResponse> {
    const unique = [...new Set(ids)];
    const scoped = access.owner !== undefined || access.namespace !== undefined || access.userId !== undefined;
    const allowed = scoped ? (await this.#accessible(unique, access)).filter((r) => r !== undefined).map((r) => r.id) : unique;
    const count = await this.store.deleteRecords(allowed);
    await this.store.setOwners(allowed, undefined);
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
    const workingMemory = ref ? (await this.#findSession(ref))?.memory : undefined;
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

  /** The records by id that the caller may see (undefined for the others), in order. */
  async #accessible(ids: readonly string[], access: MemoryAccess): Promise<Array<MemoryRecord | undefined>> {
    const [records, owners] = await Promise.all([this.store.getRecords(ids), this.store.getOwners(ids)]);
    return records.map((record, i) => (record && withinAccess(record, owners[i], access) ? record : undefined));
  }

  /**
   * The session's working memory as AMS finds it: under its exact scope, or
   * else the one session with this id whose scope matches what was given
   * (a session stored with a user is found by its id alone). Two candidates
   * are a 409 rather than a guess.
   */
  async #findSession(ref: SessionRef): Promise<{ ref: SessionRef; memory: WorkingMemory } | undefined> {
    const exact = await this.store.getWorkingMemory(ref);
    if (exact) return { ref, memory: exact };
    const candidates = await this.store.findSessions(ref);
    if (candidates.length === 0) return undefined;
    if (candidates.length > 1) {
      throw new FrameworkError({
        code: 'conflict',
        message: `Session ${ref.sessionId} exists in ${candidates.length} scopes (${candidates.map((c) => `namespace ${c.namespace ?? 'none'}, user ${c.userId ?? 'none'}`).join('; ')}); give namespace and user_id to choose one.`,
      });
    }
    const memory = await this.store.getWorkingMemory(candidates[0]!);
    return memory ? { ref: candidates[0]!, memory } : undefined;
  }

  async #search(query: MemoryQuery): Promise<MemoryRecordResults> {
    const mode = query.text === '' ? 'semantic' : (query.mode ?? 'semantic');
    const now = this.#now();
    const recency = query.recency;
    const end = query.offset + query.limit;
    const page = (memories: MemoryRecordResult[], total: number) => {
      // As AMS: the page is re-ranked by similarity and recency unless recency_boost is false.
      if (recency && !recency.serverSide && query.text !== '') memories = rerankWithRecency(memories, now, recency.params);
      return { memories, total, next_offset: end < total ? end : null };
    };
    if (mode === 'semantic') {
      const vector = query.text === '' ? undefined : (await this.#embed([query.text]))[0];
      const serverSide = vector !== undefined && recency?.serverSide === true;
      const { hits, total } = await this.store.search({
        vector,
        filters: query.filters,
        distanceThreshold: query.distanceThreshold,
        limit: serverSide ? ALL : query.limit,
        offset: serverSide ? 0 : query.offset,
      });
      const results = hits.map(({ record, dist }) => result(record, dist, vector ? Math.max(0, 1 - dist) : null, vector ? 'semantic' : null));
      if (!serverSide) return page(results, total);
      return page(rerankWithRecency(results, now, recency!.params).slice(query.offset, end), total);
    }
    // Keyword and hybrid: BM25 over every record (an in-process index synced with the store), blended with similarity for hybrid.
    const [vector, everything, matching] = await Promise.all([
      mode === 'hybrid' ? this.#embed([query.text]).then((v) => v[0]) : Promise.resolve(undefined),
      this.store.search({ vector: undefined, filters: {}, limit: ALL, offset: 0 }),
      this.store.search({ vector: undefined, filters: query.filters, limit: ALL, offset: 0 }),
    ]);
    this.#keywords.sync(everything.hits.map((hit) => hit.record));
    const ids = new Set(matching.hits.map((hit) => hit.record.id));
    const textScores = this.#keywords.scores(query.text, ids);
    const textNorm = new Map([...textScores.keys()].map((id, i, keys) => [id, normalizeScores(keys.map((k) => textScores.get(k)!))[i]!]));
    let candidates: Array<{ record: MemoryRecord; raw: number }>;
    if (mode === 'keyword') {
      candidates = matching.hits.filter((hit) => textScores.has(hit.record.id)).map((hit) => ({ record: hit.record, raw: textScores.get(hit.record.id)! }));
    } else {
      const alpha = query.hybridAlpha ?? DEFAULT_HYBRID_ALPHA;
      const { hits } = await this.store.search({ vector, filters: query.filters, limit: ALL, offset: 0 });
      candidates = hits.map(({ record, dist }) => ({ record, raw: (alpha * (2 - dist)) / 2 + (1 - alpha) * (textNorm.get(record.id) ?? 0) }));
    }
    candidates.sort((a, b) => b.raw - a.raw || a.record.id.localeCompare(b.record.id));
    const scores = normalizeScores(candidates.map((c) => c.raw));
    let results = candidates.map(({ record }, i) => result(record, Math.max(0, 1 - scores[i]!), scores[i]!, mode));
    if (recency?.serverSide) results = rerankWithRecency(results, now, recency.params);
    return page(results.slice(query.offset, end), results.length);
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

/** Every match, for the searches that rank all matches themselves. */
const ALL = Number.MAX_SAFE_INTEGER;

function result(record: MemoryRecord, dist: number, score: number | null, scoreType: MemoryRecordResult['score_type']): MemoryRecordResult {
  return { ...withListsAsEmpty(record), dist, score, score_type: scoreType };
}

function notFound(id: string): FrameworkError {
  return new BadRequestError({ code: 'not_found', message: `Memory with ID ${id} not found` });
}

function scopeText(ref: SessionRef): string {
  const parts = [ref.namespace === undefined ? '' : `namespace "${ref.namespace}"`, ref.userId === undefined ? '' : `user "${ref.userId}"`].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}
