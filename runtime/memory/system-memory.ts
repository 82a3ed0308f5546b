import { randomUUID } from 'node:crypto';
import { BadRequestError } from '../core/errors/bad-request-error.js';
import { ConfigError } from '../core/errors/config-error.js';
import { StoreUnavailableError } from '../core/errors/store-unavailable-error.js';
import { FrameworkError } from '../core/framework-error.js';
import { errorFields, silentLogger, type Logger } from '../core/logger.js';
import type { Embedder } from '../llm/embedder.js';
import { withinAccess, withListsAsEmpty, type EditMemoryRequest, type MemoryAccess, type SessionListResponse } from './memory-edits.js';
import type { MemoryFilters, TagFilter } from './memory-filters.js';
import { promptMessages, type MemoryPromptRequest, type MemoryPromptResponse } from './memory-prompt.js';
import {
  contextPercentages,
  messageTokens,
  optimizeQuery,
  summarizeIfNeeded,
  SUMMARIZATION_THRESHOLD,
  tokenLimit,
  type MemoryLanguageModel,
} from './memory-model.js';
import { DEFAULT_HYBRID_ALPHA, KeywordIndex, normalizeScores, parsedTime, rerankWithRecency } from './memory-ranking.js';
import { completeRecord, type MemoryMessage, type MemoryRecord, type MemoryRecordResult, type MemoryRecordResults } from './memory-records.js';
import type { AckResponse, CreateMemoriesRequest, CreateMemoriesResponse, MemoryHealth } from './memory-responses.js';
import { memoryQuery, SearchRequestSchema, type MemoryQuery, type SearchRequest } from './memory-search.js';
import type { MemoryStore } from './memory-store.js';
import type { ForgetResponse } from './memory-forgetting.js';
import { MemoryMaintenance } from './memory-maintenance.js';
import { softenedQuery } from './soft-filter.js';
import { extractWithStrategy, validateStrategy } from './extraction-strategies.js';
import { MemoryTasks } from './memory-tasks.js';
import { SummaryViews } from './summary-views.js';
import { compareText } from './vector-cache.js';
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
  /**
   * The generation model (our `model serve`, Ollama, or a scripted one):
   * summarises working memory past its context window, extracts memories
   * from messages in the background, and rewrites queries for
   * `optimize_query`, as AMS does. Without it those are not done, and say so.
   */
  languageModel?: MemoryLanguageModel;
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
  readonly #lm: MemoryLanguageModel | undefined;
  readonly #maintenance: MemoryMaintenance;
  /** AMS's summary views (`/v1/summary-views`) and the tasks of their full runs (`/v1/tasks/{id}`). */
  readonly summaryViews: SummaryViews;
  readonly tasks: MemoryTasks;
  /** Background work under way: extractions, last_accessed updates (awaited by `settled()`). */
  readonly #extracting = new Set<Promise<void>>();

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
    this.#lm = options.languageModel;
    this.#maintenance = new MemoryMaintenance({ store: this.store, embedder: this.embedder, languageModel: this.#lm, now: this.#now });
    this.tasks = new MemoryTasks({ store: this.store, now: this.#now });
    this.summaryViews = new SummaryViews({ store: this.store, languageModel: this.#lm, now: this.#now, tasks: this.tasks, logger: this.#logger });
  }

  /** The session's working memory; a 404 `not_found` when it has none (as AMS). */
  async getWorkingMemory(options: SessionRef & { recentMessagesLimit?: number | undefined } & ContextWindow): Promise<WorkingMemoryResponse> {
    const limit = tokenLimit({ ...options, own: this.#lm });
    const memory = (await this.#findSession(options))?.memory;
    if (memory === undefined) {
      throw new BadRequestError({
        code: 'not_found',
        message: `Session ${options.sessionId} not found${scopeText(options)}; PUT /v1/working-memory/${encodeURIComponent(options.sessionId)} creates it.`,
      });
    }
    // As AMS: with a context window, the oldest messages past it are left out (at least one kept).
    const messages = limit === undefined ? memory.messages : truncateToTokens(memory.messages, limit);
    return withPercentages(workingMemoryResponse({ memory: { ...memory, messages }, recentMessagesLimit: options.recentMessagesLimit }), limit);
  }

  /**
   * Replaces the session's working memory. Its structured `memories` not yet
   * persisted are promoted to long-term memory first (as AMS does in the
   * background); if the model runtime is down they stay unpersisted
   * (`persisted_at: null`) and are promoted by a later PUT. In token mode
   * the session, its promoted records and the records extracted from it are
   * all `owner`'s.
   */
  async putWorkingMemory(
    options: {
      sessionId: string;
      update: WorkingMemoryUpdate;
      namespace?: string | undefined;
      userId?: string | undefined;
      /** Fingerprint of the caller's token (token mode). */
      owner?: string | undefined;
    } & ContextWindow,
  ): Promise<WorkingMemoryResponse> {
    const { sessionId, update, owner } = options;
    const limit = tokenLimit({ ...options, own: this.#lm });
    if (update.session_id !== undefined && update.session_id !== sessionId) {
      throw new BadRequestError({
        code: 'invalid_request',
        message: `The body's session_id "${update.session_id}" is not the session of the path ("${sessionId}").`,
      });
    }
    validateStrategy(update.long_term_memory_strategy);
    let namespace = agree('namespace', update.namespace, options.namespace);
    let userId = agree('user_id', update.user_id, options.userId);
    // As AMS finds a session by its id alone, a write that names less of its
    // scope goes to that session rather than silently forking a second one.
    const existing = await this.#findSession({ sessionId, namespace, userId, owner });
    if (existing) ({ namespace, userId } = existing.ref);
    const at = this.#now().toISOString();
    let memory = workingMemoryFromUpdate({ sessionId, update: { ...update, namespace, user_id: userId }, at });
    if (limit !== undefined) memory = await this.#summarize(memory, limit);
    const pending = memory.memories.filter((record) => record.persisted_at === null);
    if (pending.length > 0) {
      try {
        await this.#storeRecords({ records: pending.map((record) => ({ ...record, persisted_at: at })), deduplicate: true, owner });
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
    await this.store.putWorkingMemory(memory, { owner });
    this.#extractInBackground(memory, owner);
    return withPercentages(workingMemoryResponse({ memory }), limit);
  }

  /** Settles when the background work started so far is over (for tests and shutdown). */
  async settled(): Promise<void> {
    while (this.#extracting.size > 0) await Promise.allSettled([...this.#extracting]);
    await this.summaryViews.settled();
  }

  /** AMS's summarisation on write: the older messages folded into `context` once they pass 70 % of the limit. */
  async #summarize(memory: WorkingMemory, limit: number): Promise<WorkingMemory> {
    const used = memory.messages.reduce((sum, m) => sum + messageTokens(m), 0);
    if (used <= Math.floor(limit * SUMMARIZATION_THRESHOLD)) return memory;
    if (!this.#lm) {
      throw new BadRequestError({
        code: 'invalid_request',
        message: `The messages (${used} tokens) pass ${SUMMARIZATION_THRESHOLD * 100}% of the context window (${limit}); summarising them needs a language model, which this memory server was not given (set MEMORY_GENERATION_MODEL). Leave out model_name / context_window_max to store them as they are.`,
      });
    }
    return summarizeIfNeeded(memory, limit, this.#lm);
  }

  /**
   * AMS's extraction by the session's strategy (discrete, summary,
   * preferences or custom: see extraction-strategies.ts), in the background:
   * the session's messages not yet extracted become long-term memories (with topics, entities and
   * `extracted_from`) and are marked extracted, owned by the session's
   * `owner` (token mode). Failures are logged; the messages stay unmarked and
   * a later write retries.
   */
  #extractInBackground(memory: WorkingMemory, owner: string | undefined): void {
    const lm = this.#lm;
    if (!lm) return;
    const strategy = memory.long_term_memory_strategy;
    const fresh = memory.messages.filter((m) => m.discrete_memory_extracted === 'f');
    if (fresh.length === 0) return;
    const run = (async () => {
      const at = this.#now();
      const extracted = await extractWithStrategy({
        lm,
        strategy,
        messages: fresh,
        now: at,
        session: { sessionId: memory.session_id, namespace: memory.namespace, userId: memory.user_id },
      });
      if (extracted.length > 0) {
        await this.createMemories(
          {
            deduplicate: true,
            memories: extracted.map((m) => ({
              id: randomUUID(),
              text: m.text,
              memory_type: m.type,
              topics: m.topics.length > 0 ? m.topics : null,
              entities: m.entities.length > 0 ? m.entities : null,
              event_date: m.eventDate,
              session_id: memory.session_id,
              namespace: memory.namespace ?? undefined,
              user_id: memory.user_id ?? undefined,
              extracted_from: fresh.map((f) => f.id),
              discrete_memory_extracted: 't',
              pinned: false,
              access_count: 0,
              persisted_at: null,
              extraction_strategy: strategy.strategy,
              extraction_strategy_config: strategy.config,
            })),
          },
          { owner },
        );
      }
      const ref = { sessionId: memory.session_id, namespace: memory.namespace ?? undefined, userId: memory.user_id ?? undefined, owner };
      const current = await this.store.getWorkingMemory(ref);
      if (!current) return;
      const done = new Set(fresh.map((m) => m.id));
      current.messages = current.messages.map((m) => (done.has(m.id) ? { ...m, discrete_memory_extracted: 't' } : m));
      await this.store.putWorkingMemory(current, { owner });
    })().catch((error: unknown) =>
      this.#logger.warn('memory extraction failed; a later write of the session retries', { session: memory.session_id, ...errorFields(error) }),
    );
    this.#extracting.add(run);
    void run.finally(() => this.#extracting.delete(run));
  }

  async deleteWorkingMemory(ref: SessionRef): Promise<AckResponse> {
    const found = await this.#findSession(ref);
    await this.store.deleteWorkingMemory(found?.ref ?? ref);
    return { status: 'ok' };
  }

  /** Session ids of `owner` (token mode), oldest first, filtered by namespace and user when given (AMS `GET /v1/working-memory/`). */
  async listSessions(options: {
    namespace?: string | undefined;
    userId?: string | undefined;
    owner?: string | undefined;
    limit: number;
    offset: number;
  }): Promise<SessionListResponse> {
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
    const [outcome] = await this.#storeRecords({ records: [updated], deduplicate: false, owner });
    return withListsAsEmpty(outcome!.record);
  }

  /**
   * Embeds and stores long-term memories (at once, not in the background as
   * AMS), owned by the caller's token in token mode: a record of another
   * owner is never replaced (`conflict`), and deduplication only ever
   * answers one of the caller's own records.
   */
  async createMemories(request: CreateMemoriesRequest, access: MemoryAccess = {}): Promise<CreateMemoriesResponse> {
    const at = this.#now().toISOString();
    const records = request.memories.map((input) => ({ ...completeRecord({ record: input, at }), persisted_at: at }));
    const outcomes = await this.#storeRecords({ records, deduplicate: request.deduplicate, owner: access.owner });
    return { status: 'ok', ids: outcomes.map((o) => o.id), deduplicated: outcomes.map((o) => o.deduplicated) };
  }

  /** Semantic search (or a filtered listing when there is no text), nearest first. */
  async search(
    request: SearchRequest,
    options: { optimizeQuery?: boolean; access?: MemoryAccess } = {},
  ): Promise<MemoryRecordResults & { query_optimized?: boolean }> {
    let query: MemoryQuery = memoryQuery(request, { owner: options.access?.owner });
    let optimized: boolean | undefined;
    if (options.optimizeQuery) ({ query, applied: optimized } = await this.#optimize(query));
    let results = await this.#search(query);
    // AMS's soft-filter fallback (namespace, user and session kept: see soft-filter.ts).
    const softened = results.total === 0 ? softenedQuery(query) : undefined;
    if (softened) results = await this.#search(softened);
    // As AMS: the records of a recency-ranked page were accessed (rate-limited, in the background).
    if (query.recency && !query.recency.serverSide && results.memories.length > 0) this.#touchInBackground(results.memories);
    return optimized === undefined ? results : { ...results, query_optimized: optimized };
  }

  /** Forgetting by policy (AMS `POST /v1/long-term-memory/forget`); see `MemoryMaintenance.forget`. */
  forget(options: Parameters<MemoryMaintenance['forget']>[0]): Promise<ForgetResponse> {
    return this.#maintenance.forget(options);
  }

  /** Compaction (AMS `POST /v1/long-term-memory/compact`, MCP `compact_long_term_memories`): AMS's status text. */
  async compact(options: Parameters<MemoryMaintenance['compact']>[0]): Promise<AckResponse> {
    const { remaining, semantic } = await this.#maintenance.compact(options);
    return {
      status: `ok, ${remaining} memories remaining after compaction${semantic ? '' : ' (exact duplicates only: semantic merging needs a generation model, MEMORY_GENERATION_MODEL)'}`,
    };
  }

  /**
   * AMS's `update_last_accessed`: at most once per 15 minutes per record; failures are logged, never the search's.
   * The hits show when their records were last accessed as the search saw them: when every one is within the
   * interval (the usual case for repeated searches) the store is not called at all; it checks again for the rest.
   */
  #touchInBackground(hits: readonly MemoryRecordResult[]): void {
    const now = this.#now();
    const at = now.getTime();
    const ids = hits.filter((hit) => !(at - parsedTime(hit.last_accessed) < TOUCH_INTERVAL_MS)).map((hit) => hit.id);
    if (ids.length === 0) return;
    const run = this.store
      .touchRecords({ ids, at: now.toISOString(), minIntervalMs: TOUCH_INTERVAL_MS })
      .then(() => undefined)
      .catch((error: unknown) => this.#logger.warn('last_accessed not updated after a search', { count: ids.length, ...errorFields(error) }));
    this.#extracting.add(run);
    void run.finally(() => this.#extracting.delete(run));
  }

  /**
   * AMS's `optimize_query`: a semantic search's text rewritten by the
   * language model; unchanged (and `applied: false`) for keyword and hybrid
   * searches, as AMS, and when this server has no language model.
   */
  async #optimize(query: MemoryQuery): Promise<{ query: MemoryQuery; applied: boolean }> {
    if (!this.#lm || query.text === '' || (query.mode ?? 'semantic') !== 'semantic') return { query, applied: false };
    return { query: { ...query, text: await optimizeQuery(this.#lm, query.text) }, applied: true };
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
    return { status: `ok, deleted ${count} memories` };
  }

  /**
   * The messages to send to a model for `query`: the session's working
   * memory and/or the related long-term memories. A long-term search is kept
   * inside the session's namespace and user unless it names its own.
   */
  async prompt(request: MemoryPromptRequest, options: { optimizeQuery?: boolean; access?: MemoryAccess } = {}): Promise<MemoryPromptResponse> {
    const session = request.session ?? undefined;
    const ref = session ? { sessionId: session.session_id, namespace: session.namespace, userId: session.user_id, owner: options.access?.owner } : undefined;
    let workingMemory = ref ? (await this.#findSession(ref))?.memory : undefined;
    const limit = session ? tokenLimit({ modelName: session.model_name, contextWindowMax: session.context_window_max, own: this.#lm }) : undefined;
    if (workingMemory && limit !== undefined) workingMemory = { ...workingMemory, messages: truncateToTokens(workingMemory.messages, limit) };
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
              // AMS's default search request: recency re-ranking on.
              recency: memoryQuery(SearchRequestSchema.parse({})).recency,
            }
          : (() => {
              const base = memoryQuery(search);
              return { ...base, text: request.query, filters: withScope({ filters: base.filters, ref }) };
            })();
      const owned = { ...query, owner: options.access?.owner };
      longTerm = await this.#search(options.optimizeQuery ? (await this.#optimize(owned)).query : owned);
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
        owner: query.owner,
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
    // Keyword and hybrid: BM25 over the matching records (an in-process index kept in step with what searches see),
    // blended for hybrid with the vector similarity of every matching record.
    // Hybrid ranks the nearest HYBRID_CANDIDATES (at least the page) by vector, as AMS's KNN-then-blend query does.
    const vector = mode === 'hybrid' ? (await this.#embed([query.text]))[0] : undefined;
    const limit = vector ? Math.max(HYBRID_CANDIDATES, query.offset + query.limit) : ALL;
    const matching = (await this.store.search({ vector, filters: query.filters, owner: query.owner, limit, offset: 0 })).hits;
    this.#keywords.sync(
      matching.map((hit) => hit.record),
      { complete: !vector && Object.keys(query.filters).length === 0 && query.owner === undefined },
    );
    const textScores = this.#keywords.scores(query.text, new Set(matching.map((hit) => hit.record.id)));
    let candidates: Array<{ record: MemoryRecord; raw: number }>;
    if (mode === 'keyword') {
      candidates = matching.filter((hit) => textScores.has(hit.record.id)).map((hit) => ({ record: hit.record, raw: textScores.get(hit.record.id)! }));
    } else {
      const alpha = query.hybridAlpha ?? DEFAULT_HYBRID_ALPHA;
      const textIds = [...textScores.keys()];
      const textNormalized = normalizeScores(textIds.map((id) => textScores.get(id)!));
      const textNorm = new Map(textIds.map((id, i) => [id, textNormalized[i]!]));
      candidates = matching.map(({ record, dist }) => ({ record, raw: (alpha * (2 - dist)) / 2 + (1 - alpha) * (textNorm.get(record.id) ?? 0) }));
    }
    candidates.sort((a, b) => b.raw - a.raw || compareText(a.record.id, b.record.id));
    const scores = normalizeScores(candidates.map((c) => c.raw));
    let results = candidates.map(({ record }, i) => result(record, Math.max(0, 1 - scores[i]!), scores[i]!, mode));
    if (recency?.serverSide) results = rerankWithRecency(results, now, recency.params);
    return page(results.slice(query.offset, end), results.length);
  }

  async #storeRecords(options: { records: MemoryRecord[]; deduplicate: boolean; owner: string | undefined }) {
    const vectors = await this.#embed(options.records.map((record) => record.text));
    return this.store.putRecords({
      records: options.records.map((record, i) => ({ record, vector: vectors[i]! })),
      deduplicate: options.deduplicate,
      owner: options.owner,
    });
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

/** `model_name` / `context_window_max` of a working-memory request (AMS). */
interface ContextWindow {
  modelName?: string | undefined;
  contextWindowMax?: number | undefined;
}

/** AMS's truncation: the oldest messages dropped until the rest fit in `limit` tokens, at least one kept. */
function truncateToTokens<M extends MemoryMessage>(messages: readonly M[], limit: number): M[] {
  let kept = [...messages];
  let tokens = kept.reduce((sum, m) => sum + messageTokens(m), 0);
  while (kept.length > 1 && tokens > limit) {
    tokens -= messageTokens(kept[0]!);
    kept = kept.slice(1);
  }
  return kept;
}

function withPercentages(response: WorkingMemoryResponse, limit: number | undefined): WorkingMemoryResponse {
  const [total, untilSummary] = contextPercentages(response.messages, limit);
  return { ...response, context_percentage_total_used: total, context_percentage_until_summarization: untilSummary };
}

/** Nearest records a hybrid search blends with their keyword scores (AMS blends its KNN results). */
const HYBRID_CANDIDATES = 200;

/** AMS's `min_interval_seconds` of `update_last_accessed`. */
const TOUCH_INTERVAL_MS = 900_000;

/** Every match, for the searches that rank all matches themselves. */
const ALL = Number.MAX_SAFE_INTEGER;

function result(record: MemoryRecord, dist: number, score: number | null, scoreType: MemoryRecordResult['score_type']): MemoryRecordResult {
  // One copy per hit (as withListsAsEmpty, inlined: a search builds a page of these), every field named in
  // MemoryRecordResultSchema's order: a spread of the record followed by fields of its own cost V8 about 4.5 µs
  // of CPU per hit (a new hidden class each time), this literal 0.06 µs.
  return {
    id: record.id,
    text: record.text,
    session_id: record.session_id,
    user_id: record.user_id,
    namespace: record.namespace,
    last_accessed: record.last_accessed,
    created_at: record.created_at,
    updated_at: record.updated_at,
    pinned: record.pinned,
    access_count: record.access_count,
    topics: record.topics ?? [],
    entities: record.entities ?? [],
    memory_hash: record.memory_hash,
    discrete_memory_extracted: record.discrete_memory_extracted,
    memory_type: record.memory_type,
    persisted_at: record.persisted_at,
    extracted_from: record.extracted_from ?? [],
    event_date: record.event_date,
    extraction_strategy: record.extraction_strategy,
    extraction_strategy_config: record.extraction_strategy_config,
    dist,
    score,
    score_type: scoreType,
  };
}

function notFound(id: string): FrameworkError {
  return new BadRequestError({ code: 'not_found', message: `Memory with ID ${id} not found` });
}

function scopeText(ref: SessionRef): string {
  const parts = [ref.namespace === undefined ? '' : `namespace "${ref.namespace}"`, ref.userId === undefined ? '' : `user "${ref.userId}"`].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}
