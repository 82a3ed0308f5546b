import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { BadRequestError } from '../core/errors/bad-request-error.js';
import { errorFields, type Logger } from '../core/logger.js';
import { parseJsonOrUndefined } from '../core/json.js';
import { withinAccess, type MemoryAccess } from './memory-edits.js';
import { DateTimeFilterSchema, TagFilterSchema, type MemoryFilters, type TagFilter } from './memory-filters.js';
import { countTokens, SUMMARIZATION_THRESHOLD, type MemoryLanguageModel } from './memory-model.js';
import { IdentifierSchema, MemoryTypeSchema, type MemoryRecord } from './memory-records.js';
import type { MemoryStore } from './memory-store.js';
import type { MemoryTasks, Task } from './memory-tasks.js';
import { compareText } from './vector-cache.js';

/**
 * AMS's summary views (summary_views.py, `/v1/summary-views`): a stored
 * configuration (source, `group_by`, filters, time window, prompt) whose
 * long-term memories are partitioned by the `group_by` fields and each
 * partition summarised by the generation model. A partition runs at once;
 * a full run is a task (see memory-tasks.ts). Without a generation model
 * the summary is AMS's fallback: the memories' texts concatenated (up to 50).
 * In token mode a view and its summaries belong to the token that created it.
 */

const GROUP_FIELDS = ['user_id', 'namespace', 'session_id', 'memory_type'] as const;
const FILTER_FIELDS = ['user_id', 'namespace', 'session_id', 'memory_type', 'extraction_strategy', 'topics', 'event_date'] as const;
/** AMS's `_MAX_MEMORIES_FOR_LLM_PROMPT`. */
const MAX_PROMPT_MEMORIES = 200;

export const CreateSummaryViewRequestSchema = z.strictObject({
  name: z.string().nullable().optional(),
  source: z.enum(['long_term', 'working_memory'], { error: 'must be "long_term" or "working_memory"' }),
  group_by: z.array(z.string()).default([]),
  filters: z.record(z.string(), z.json()).nullable().default({}),
  time_window_days: z.number().int('must be a whole number').min(1).nullable().optional(),
  continuous: z.boolean().nullable().optional(),
  prompt: z.string().nullable().optional(),
  model_name: z.string().nullable().optional(),
});

const StoredViewSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  source: z.enum(['long_term', 'working_memory']),
  group_by: z.array(z.string()),
  filters: z.record(z.string(), z.json()),
  time_window_days: z.number().nullable(),
  continuous: z.boolean(),
  prompt: z.string().nullable(),
  model_name: z.string().nullable(),
  owner: z.string().optional(),
});
/** AMS's `SummaryView` (what the API answers: the stored view without its owner). */
export type SummaryView = Omit<z.infer<typeof StoredViewSchema>, 'owner'>;
type StoredView = z.infer<typeof StoredViewSchema>;

export const RunPartitionRequestSchema = z.strictObject({ group: z.record(z.string(), z.string()) });
/** AMS's `RunSummaryViewRequest` (`task_id`), plus the client's `force` (accepted; every run recomputes). */
export const RunViewRequestSchema = z.strictObject({ task_id: IdentifierSchema.nullable().optional(), force: z.boolean().optional() });
export const PartitionQuerySchema = z.strictObject({
  user_id: z.string().optional(),
  namespace: z.string().optional(),
  session_id: z.string().optional(),
  memory_type: z.string().optional(),
});

const PartitionResultSchema = z.object({
  view_id: z.string(),
  group: z.record(z.string(), z.string()),
  summary: z.string(),
  memory_count: z.number().int(),
  empty: z.boolean(),
  empty_reason: z.string().nullable(),
  computed_at: z.string(),
});
/** AMS's `SummaryViewPartitionResult`. */
export type PartitionResult = z.infer<typeof PartitionResultSchema>;

/** AMS's `encode_partition_key`: sorted, URL-encoded `key=value` pairs joined by `|`. */
export function encodePartitionKey(group: Readonly<Record<string, string>>): string {
  return Object.keys(group)
    .sort(compareText)
    .map((key) => `${encodeURIComponent(key)}=${encodeURIComponent(group[key]!)}`)
    .join('|');
}

const invalid = (message: string) => new BadRequestError({ code: 'invalid_request', message });

/** The view's static filters as search filters, and the `extraction_strategy` test (a field our filters lack). */
function viewFilters(view: StoredView, group: Readonly<Record<string, string>>, now: Date): { filters: MemoryFilters; strategy?: TagFilter } {
  const filters: MemoryFilters = {};
  let strategy: TagFilter | undefined;
  const tag = (value: unknown): TagFilter =>
    typeof value === 'string' ? { eq: [value] } : Array.isArray(value) ? { any: value.map(String) } : TagFilterSchema.parse(value);
  const apply = (key: string, value: unknown) => {
    switch (key) {
      case 'user_id':
      case 'namespace':
      case 'session_id':
        filters[key] = { eq: [String(value)] };
        break;
      case 'memory_type':
        filters.memory_type = { eq: [MemoryTypeSchema.parse(String(value))] };
        break;
      case 'topics':
        filters.topics = tag(value);
        break;
      case 'extraction_strategy':
        strategy = tag(value);
        break;
      case 'event_date':
        filters.event_date = DateTimeFilterSchema.parse(typeof value === 'object' && value !== null ? value : { eq: value });
        break;
    }
  };
  for (const [key, value] of Object.entries(view.filters)) apply(key, value);
  for (const [key, value] of Object.entries(group)) apply(key, value);
  if (view.time_window_days !== null) {
    filters.created_at = DateTimeFilterSchema.parse({ gte: new Date(now.getTime() - view.time_window_days * 86_400_000).toISOString() });
  }
  return strategy ? { filters, strategy } : { filters };
}

/** Summary views of one store. */
export class SummaryViews {
  readonly #store: MemoryStore;
  readonly #lm: MemoryLanguageModel | undefined;
  readonly #now: () => Date;
  readonly #tasks: MemoryTasks;
  readonly #logger: Logger;
  readonly #running = new Set<Promise<void>>();

  constructor(options: { store: MemoryStore; languageModel?: MemoryLanguageModel | undefined; now: () => Date; tasks: MemoryTasks; logger: Logger }) {
    this.#store = options.store;
    this.#lm = options.languageModel;
    this.#now = options.now;
    this.#tasks = options.tasks;
    this.#logger = options.logger;
  }

  /** AMS's `_validate_summary_view_keys`, then the view stored under a new id. */
  async create(request: z.output<typeof CreateSummaryViewRequestSchema>, access: MemoryAccess): Promise<SummaryView> {
    if (request.source !== 'long_term') throw invalid("SummaryView.source must be 'long_term' for now; 'working_memory' is not yet supported.");
    const badGroup = request.group_by.filter((k) => !(GROUP_FIELDS as readonly string[]).includes(k)).sort(compareText);
    if (badGroup.length > 0) throw invalid(`Unsupported group_by fields: ${badGroup.join(', ')} (use ${GROUP_FIELDS.join(', ')})`);
    const filters = request.filters ?? {};
    const badFilters = Object.keys(filters)
      .filter((k) => !(FILTER_FIELDS as readonly string[]).includes(k))
      .sort(compareText);
    if (badFilters.length > 0) throw invalid(`Unsupported filter fields: ${badFilters.join(', ')} (use ${FILTER_FIELDS.join(', ')})`);
    const view: StoredView = {
      id: randomUUID(),
      name: request.name ?? null,
      source: request.source,
      group_by: request.group_by,
      filters,
      time_window_days: request.time_window_days ?? null,
      continuous: request.continuous ?? false,
      prompt: request.prompt ?? null,
      model_name: request.model_name ?? null,
      ...(access.owner !== undefined ? { owner: access.owner } : {}),
    };
    try {
      viewFilters(view, {}, this.#now());
    } catch (error) {
      throw invalid(
        `filters: ${error instanceof z.ZodError ? error.issues.map((i) => `${i.path.join('.') || 'value'} ${i.message}`).join('; ') : String(error)}`,
      );
    }
    await this.#store.putDocument({ kind: 'view', id: view.id, json: JSON.stringify(view) });
    return publicView(view);
  }

  async list(access: MemoryAccess): Promise<SummaryView[]> {
    const docs = await this.#store.listDocuments('view');
    return docs
      .map((d) => parseView(d.json))
      .filter((v): v is StoredView => v !== undefined && ownedBy(v, access))
      .map(publicView);
  }

  /** The view, or a 404 (also for another token's view). */
  async get(id: string, access: MemoryAccess): Promise<SummaryView> {
    return publicView(await this.#find(id, access));
  }

  /** Deletes the view (its stored summaries stay, as AMS); `ok` also when there was none, as AMS. */
  async delete(id: string, access: MemoryAccess): Promise<{ status: string }> {
    const json = await this.#store.getDocument('view', id);
    const view = json === undefined ? undefined : parseView(json);
    if (view && ownedBy(view, access)) await this.#store.deleteDocument('view', id);
    return { status: 'ok' };
  }

  /** Summarises one partition now and stores the result (AMS `POST .../partitions/run`). */
  async runPartition(id: string, group: Record<string, string>, access: MemoryAccess): Promise<PartitionResult> {
    const view = await this.#find(id, access);
    const given = Object.keys(group).sort(compareText);
    const expected = [...view.group_by].sort(compareText);
    if (given.join('\u0000') !== expected.join('\u0000')) {
      throw invalid(`group keys ${JSON.stringify(given)} must exactly match view.group_by ${JSON.stringify(expected)}`);
    }
    const memories = await this.#memories(view, group, access);
    const result = await this.#summarize(view, group, memories);
    await this.#save(result);
    return result;
  }

  /** The stored partition results of a view, filtered by group values (AMS `GET .../partitions`). */
  async listPartitions(id: string, groupFilter: Record<string, string | undefined>, access: MemoryAccess): Promise<PartitionResult[]> {
    await this.#find(id, access);
    const prefix = `${encodeURIComponent(id)}#`;
    const results = (await this.#store.listDocuments('partition'))
      .filter((d) => d.id.startsWith(prefix))
      .map((d) => PartitionResultSchema.safeParse(parseJsonOrUndefined(d.json)))
      .flatMap((p) => (p.success ? [p.data] : []));
    return results.filter((r) => Object.entries(groupFilter).every(([key, value]) => value === undefined || r.group[key] === value));
  }

  /**
   * A full run as a task (AMS `POST .../run`): answers the pending task at
   * once; every partition is then summarised in this process and the task
   * reports running, success or failed.
   */
  async run(id: string, taskId: string | undefined, access: MemoryAccess): Promise<Task> {
    const view = await this.#find(id, access);
    const stored = await this.#tasks.create({ id: taskId ?? randomUUID(), viewId: view.id, owner: access.owner });
    const work = this.#tasks.run(stored, async () => {
      const memories = await this.#memories(view, {}, access);
      const partitions = new Map<string, { group: Record<string, string>; memories: MemoryRecord[] }>();
      for (const memory of memories) {
        const group: Record<string, string> = {};
        for (const field of view.group_by) {
          const value = memory[field as (typeof GROUP_FIELDS)[number]];
          if (value !== null) group[field] = String(value);
        }
        // As AMS: a memory without a value for a grouping field is in no partition.
        if (Object.keys(group).length < view.group_by.length) continue;
        const key = encodePartitionKey(group);
        const partition = partitions.get(key) ?? { group, memories: [] };
        partition.memories.push(memory);
        partitions.set(key, partition);
      }
      for (const partition of partitions.values()) await this.#save(await this.#summarize(view, partition.group, partition.memories));
    });
    const tracked = work.catch((error: unknown) => this.#logger.warn('summary view run failed', { view: id, ...errorFields(error) }));
    this.#running.add(tracked);
    void tracked.finally(() => this.#running.delete(tracked));
    const { owner: _owner, ...task } = stored;
    return task;
  }

  /** Settles when the runs started so far are over. */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  async #find(id: string, access: MemoryAccess): Promise<StoredView> {
    const json = await this.#store.getDocument('view', id);
    const view = json === undefined ? undefined : parseView(json);
    if (!view || !ownedBy(view, access)) throw new BadRequestError({ code: 'not_found', message: `SummaryView ${id} not found` });
    return view;
  }

  async #memories(view: StoredView, group: Record<string, string>, access: MemoryAccess): Promise<MemoryRecord[]> {
    const { filters, strategy } = viewFilters(view, group, this.#now());
    const { hits } = await this.#store.search({ vector: undefined, filters, limit: Number.MAX_SAFE_INTEGER, offset: 0 });
    let records = hits.map((h) => h.record);
    if (strategy) {
      const wanted = new Set([...(strategy.eq ?? []), ...(strategy.any ?? [])]);
      records = records.filter((r) => wanted.has(r.extraction_strategy));
    }
    if (access.owner !== undefined) {
      const owners = await this.#store.getOwners(records.map((r) => r.id));
      records = records.filter((r, i) => withinAccess(r, owners[i], access));
    }
    return records;
  }

  async #summarize(view: StoredView, group: Record<string, string>, memories: MemoryRecord[]): Promise<PartitionResult> {
    const computedAt = this.#now().toISOString();
    const base = { view_id: view.id, group, memory_count: memories.length, computed_at: computedAt };
    if (memories.length === 0) return { ...base, summary: '', empty: true, empty_reason: 'no_matching_memories' };
    const sorted = [...memories].sort(
      (a, b) =>
        compareText(a.event_date ?? a.created_at, b.event_date ?? b.created_at) ||
        compareText(a.created_at, b.created_at) ||
        compareText(a.session_id ?? '', b.session_id ?? '') ||
        compareText(a.id, b.id),
    );
    const lm = this.#lm;
    if (!lm) {
      const joined = sorted
        .slice(0, 50)
        .map((m) => `- ${m.text}`)
        .join('\n');
      return {
        ...base,
        summary: `LLM summarization disabled (no generation model: set MEMORY_GENERATION_MODEL). Concatenated up to 50 memories:\n${joined}`,
        empty: false,
        empty_reason: null,
      };
    }
    const { text } = await lm.model.chat({ model: lm.name, messages: [{ role: 'user', content: summaryPrompt(view, group, sorted, lm) }], temperature: 0 });
    const summary = text.trim() === '' ? 'No summary could be generated for this partition.' : text.trim();
    return { ...base, summary, empty: false, empty_reason: null };
  }

  #save(result: PartitionResult): Promise<void> {
    return this.#store.putDocument({
      kind: 'partition',
      id: `${encodeURIComponent(result.view_id)}#${encodePartitionKey(result.group)}`,
      json: JSON.stringify(result),
    });
  }
}

const DEFAULT_INSTRUCTIONS =
  'You are a summarization assistant. Given a set of long-term memories, produce a concise summary that highlights key facts, stable preferences, and important events relevant to the group. Use only supplied memory metadata for dates and timestamps; ignore missing metadata rather than inferring it.';

/** AMS's `_build_long_term_summary_prompt`: memories as sorted-key JSON lines within 70 % of the model's window. */
function summaryPrompt(view: StoredView, group: Record<string, string>, memories: readonly MemoryRecord[], lm: MemoryLanguageModel): string {
  const window = Math.max(lm.contextTokens ?? 8192, 1);
  const budget = Math.max(Math.floor(window * SUMMARIZATION_THRESHOLD) - Math.min(4096, Math.floor(window / 10)), 1024);
  const prefix = `${view.prompt ?? DEFAULT_INSTRUCTIONS}\n\nGROUP: ${sortedJson(group)}\n\nMEMORIES:\n`;
  let remaining = budget - countTokens(prefix);
  const maxLine = Math.min(1024, Math.floor(window / 20));
  const lines: string[] = [];
  for (const m of memories.slice(0, MAX_PROMPT_MEMORIES)) {
    const payload = (text: string) =>
      sortedJson({
        id: m.id,
        text,
        created_at: m.created_at,
        event_date: m.event_date,
        extraction_strategy: m.extraction_strategy,
        session_id: m.session_id,
        namespace: m.namespace,
        user_id: m.user_id,
        topics: m.topics ?? [],
      });
    let line = payload(m.text);
    if (countTokens(line) > maxLine) line = payload(m.text.slice(0, maxLine * 4));
    if (countTokens(line) > remaining) break;
    lines.push(line);
    remaining -= countTokens(line);
  }
  const truncated = memories.length > lines.length ? `\n\n[Memories truncated to fit token budget: used ${lines.length} of ${memories.length} entries]` : '';
  return `${prefix}${lines.join('\n')}${truncated}\n\nSUMMARY:`;
}

function sortedJson(value: Record<string, unknown>): string {
  return JSON.stringify(
    Object.fromEntries(
      Object.keys(value)
        .sort(compareText)
        .map((k) => [k, value[k]]),
    ),
  );
}

function parseView(json: string): StoredView | undefined {
  const parsed = StoredViewSchema.safeParse(parseJsonOrUndefined(json));
  return parsed.success ? parsed.data : undefined;
}

/** Without tokens every view is the caller's; with one, only the views it made (not those made without tokens: fail closed). */
function ownedBy(view: StoredView, access: MemoryAccess): boolean {
  return access.owner === undefined || view.owner === access.owner;
}

function publicView(view: StoredView): SummaryView {
  const { owner: _owner, ...rest } = view;
  return rest;
}
