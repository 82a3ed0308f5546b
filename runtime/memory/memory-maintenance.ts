import { randomUUID } from 'node:crypto';
import type { Embedder } from '../llm/embedder.js';
import { withinAccess, type MemoryAccess } from './memory-edits.js';
import type { MemoryFilters, TagFilter } from './memory-filters.js';
import { selectIdsForForgetting, type ForgetPolicy, type ForgetResponse } from './memory-forgetting.js';
import type { MemoryLanguageModel } from './memory-model.js';
import type { MemoryRecord } from './memory-records.js';
import type { MemoryStore } from './memory-store.js';
import { compareText } from './vector-cache.js';

/** The scope of a forgetting or compaction pass (AMS's namespace / user_id / session_id parameters). */
export interface MaintenanceScope {
  namespace?: string | undefined;
  userId?: string | undefined;
  sessionId?: string | undefined;
}

/** AMS compaction's `vector_distance_threshold`: records at most this cosine distance apart are one memory. */
export const COMPACTION_DISTANCE = 0.2;
/** AMS's `SEMANTIC_DEDUP_SEARCH_LIMIT`: neighbours merged with one record per pass. */
const MERGE_GROUP_LIMIT = 10;
/** AMS's compaction `limit`: records examined per pass. */
const COMPACTION_LIMIT = 1000;

// AMS's merge prompt (long_term_memory.merge_memories_with_llm).
const MERGE_PROMPT = `You are a memory merging assistant. Your job is to merge similar or
duplicate memories.

You will be given a list of memories. You will need to merge them into a
single, coherent memory.

The memories:
{memories}

The merged memory:`;

const eq = (value: string | undefined): TagFilter | undefined => (value === undefined ? undefined : { eq: [value] });

/**
 * AMS's upkeep of long-term memory: forgetting by policy, and compaction
 * (exact duplicates removed; near-duplicates merged into one by the
 * generation model when there is one). Both act only on the records the
 * caller may reach (its token's own in token mode).
 */
export class MemoryMaintenance {
  readonly #store: MemoryStore;
  readonly #embedder: Embedder;
  readonly #lm: MemoryLanguageModel | undefined;
  readonly #now: () => Date;

  constructor(options: { store: MemoryStore; embedder: Embedder; languageModel?: MemoryLanguageModel | undefined; now: () => Date }) {
    this.#store = options.store;
    this.#embedder = options.embedder;
    this.#lm = options.languageModel;
    this.#now = options.now;
  }

  /**
   * AMS's `forget_long_term_memories`: up to `limit` records of the scope
   * (newest first) scanned, those the policy selects deleted unless
   * `dryRun`; `deleted` counts the selected ones on a dry run, as AMS.
   */
  async forget(options: {
    policy: ForgetPolicy;
    scope: MaintenanceScope;
    limit: number;
    dryRun: boolean;
    pinnedIds?: readonly string[] | null | undefined;
    access: MemoryAccess;
  }): Promise<ForgetResponse> {
    const records = await this.#reachable(options.scope, options.limit, options.access);
    const ids = selectIdsForForgetting({ records, policy: options.policy, now: this.#now(), pinnedIds: new Set(options.pinnedIds ?? []) });
    ids.sort(compareText);
    const deleted = options.dryRun || ids.length === 0 ? ids.length : await this.#store.deleteRecords(ids);
    return { scanned: records.length, deleted, deleted_ids: ids, dry_run: options.dryRun };
  }

  /**
   * AMS's `compact_long_term_memories`: records of the scope with the same
   * dedup hash (same text, namespace and user) are kept once (the most
   * recently accessed); then, with a generation model, each record and its
   * neighbours within `COMPACTION_DISTANCE` (same namespace and user, a
   * cohesive group: each member's neighbours are the group) are merged by
   * the model into one new record and deleted. Answers how many records of
   * the scope remain, and whether the semantic step ran.
   */
  async compact(options: { scope: MaintenanceScope; access: MemoryAccess }): Promise<{ remaining: number; merged: number; semantic: boolean }> {
    const records = await this.#reachable(options.scope, COMPACTION_LIMIT, options.access);
    const byHash = new Map<string, MemoryRecord[]>();
    for (const record of records) {
      if (!record.memory_hash) continue;
      const group = byHash.get(record.memory_hash) ?? [];
      group.push(record);
      byHash.set(record.memory_hash, group);
    }
    const duplicates: string[] = [];
    for (const group of byHash.values()) {
      if (group.length < 2) continue;
      group.sort((a, b) => compareText(a.last_accessed, b.last_accessed) || compareText(a.id, b.id));
      duplicates.push(...group.slice(0, -1).map((r) => r.id));
    }
    let merged = 0;
    if (duplicates.length > 0) merged += await this.#store.deleteRecords(duplicates);
    if (this.#lm) {
      const gone = new Set(duplicates);
      merged += await this.#mergeNear(
        records.filter((r) => !gone.has(r.id)),
        options,
      );
    }
    const remaining = (await this.#reachable(options.scope, Number.MAX_SAFE_INTEGER, options.access)).length;
    return { remaining, merged, semantic: this.#lm !== undefined };
  }

  async #mergeNear(records: MemoryRecord[], options: { scope: MaintenanceScope; access: MemoryAccess }): Promise<number> {
    const lm = this.#lm!;
    const vectors = await this.#store.getVectors(records.map((r) => r.id));
    const vectorOf = new Map(records.map((r, i) => [r.id, vectors[i]]));
    const done = new Set<string>();
    let merged = 0;
    const neighbours = async (record: MemoryRecord, vector: Float32Array) => {
      const filters: MemoryFilters = {
        ...(record.namespace !== null ? { namespace: eq(record.namespace) } : {}),
        ...(record.user_id !== null ? { user_id: eq(record.user_id) } : {}),
        ...(options.scope.sessionId !== undefined ? { session_id: eq(options.scope.sessionId) } : {}),
      };
      const { hits } = await this.#store.search({ vector, filters, distanceThreshold: COMPACTION_DISTANCE, limit: MERGE_GROUP_LIMIT + 1, offset: 0 });
      const owners = await this.#store.getOwners(hits.map((h) => h.record.id));
      // AMS filters by the scope given, not the record's: here a record with no namespace/user only meets others without one.
      return hits
        .filter(
          (h, i) =>
            h.record.id !== record.id &&
            h.record.namespace === record.namespace &&
            h.record.user_id === record.user_id &&
            withinAccess(h.record, owners[i], options.access),
        )
        .map((h) => h.record)
        .slice(0, MERGE_GROUP_LIMIT);
    };
    for (const record of records) {
      const vector = vectorOf.get(record.id);
      if (done.has(record.id) || !vector) continue;
      done.add(record.id);
      const group = (await neighbours(record, vector)).filter((r) => !done.has(r.id));
      if (group.length === 0) continue;
      // AMS's cohesion check: a member whose own neighbours differ from the group is a bridge; skip the group.
      const ids = new Set([record.id, ...group.map((r) => r.id)]);
      let cohesive = true;
      for (const member of group) {
        const [memberVector] = await this.#store.getVectors([member.id]);
        if (!memberVector) continue;
        const around = new Set((await neighbours(member, memberVector)).map((r) => r.id));
        const expected = [...ids].filter((id) => id !== member.id);
        if ([...around].some((id) => !ids.has(id)) || expected.some((id) => !around.has(id))) cohesive = false;
      }
      if (!cohesive) continue;
      const all = [record, ...group];
      for (const r of all) done.add(r.id);
      const prompt = MERGE_PROMPT.replace('{memories}', all.map((r, i) => `${i + 1}: ${r.text}`).join('\n'));
      const { text } = await lm.model.chat({ model: lm.name, messages: [{ role: 'user', content: prompt }], temperature: 0 });
      const mergedText = text.trim();
      if (mergedText === '') continue;
      const at = this.#now().toISOString();
      const union = (field: 'topics' | 'entities') => {
        const values = [...new Set(all.flatMap((r) => r[field] ?? []))];
        return values.length > 0 ? values : null;
      };
      const byTime = (field: 'created_at' | 'last_accessed', pick: 'min' | 'max') =>
        all.map((r) => r[field]).reduce((a, b) => ((pick === 'min' ? compareText(a, b) <= 0 : compareText(a, b) >= 0) ? a : b));
      const mergedRecord: MemoryRecord = {
        ...record,
        id: randomUUID(),
        text: mergedText,
        session_id: all.find((r) => r.session_id !== null)?.session_id ?? null,
        created_at: byTime('created_at', 'min'),
        last_accessed: byTime('last_accessed', 'max'),
        updated_at: at,
        persisted_at: at,
        topics: union('topics'),
        entities: union('entities'),
        memory_hash: null,
        discrete_memory_extracted: 't',
        access_count: 0,
        pinned: all.some((r) => r.pinned),
        extracted_from: null,
      };
      const [embedded] = await this.#embedder.embed([mergedText]);
      const [owner] = await this.#store.getOwners([record.id]);
      await this.#store.putRecords({ records: [{ record: mergedRecord, vector: embedded! }], deduplicate: false, owner });
      await this.#store.deleteRecords(all.map((r) => r.id));
      done.add(mergedRecord.id);
      merged += all.length - 1;
    }
    return merged;
  }

  /** Up to `limit` records of the scope (newest first) that the caller may reach. */
  async #reachable(scope: MaintenanceScope, limit: number, access: MemoryAccess): Promise<MemoryRecord[]> {
    const filters: MemoryFilters = {
      ...(scope.namespace !== undefined ? { namespace: eq(scope.namespace) } : {}),
      ...(scope.userId !== undefined ? { user_id: eq(scope.userId) } : {}),
      ...(scope.sessionId !== undefined ? { session_id: eq(scope.sessionId) } : {}),
    };
    const { hits } = await this.#store.search({ vector: undefined, filters, limit, offset: 0 });
    const records = hits.map((h) => h.record);
    if (access.owner === undefined) return records;
    const owners = await this.#store.getOwners(records.map((r) => r.id));
    return records.filter((r, i) => withinAccess(r, owners[i], access));
  }
}
