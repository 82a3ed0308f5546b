import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Env } from '../core/config.js';
import { parseJsonOrUndefined, type JsonValue } from '../core/json.js';
import { agentMemoryConfig, readTokenFile } from './memory-config.js';
import { MemoryPromptResponseSchema, type MemoryPromptResponse } from './memory-prompt.js';
import { MemoryRecordResultsSchema, type MemoryMessageInput, type MemoryRecordResult, type MemoryType } from './memory-records.js';
import { AckResponseSchema, MemoryErrorBodySchema } from './memory-responses.js';
import { MemoryServiceError } from './memory-service-error.js';
import { WorkingMemoryResponseSchema, type WorkingMemoryResponse } from './working-memory.js';

export interface AgentMemoryOptions {
  /** The memory service; default AGENT_MEMORY_URL, read when constructed. */
  url?: string;
  /** The session to remember in; default CONTEXT_ID, read when constructed. */
  contextId?: string;
  /** Keeps this agent's memories apart from other namespaces': written with it, searched only within it. */
  namespace?: string;
  /** Keeps memories apart per user, like `namespace`. */
  userId?: string;
  /** Bearer token of a memory service in token mode; default AGENT_MEMORY_TOKEN, else the first line of AGENT_MEMORY_TOKEN_FILE. */
  token?: string;
  /** How long one call may take; default 30 s (embedding runs on the model runtime). */
  timeoutMs?: number;
  /** Where unset options are read from; default `process.env`. */
  env?: Env;
}

export interface RememberOptions {
  topics?: string[];
  entities?: string[];
  /** Default `semantic` (a fact); `episodic` for an event, with `eventDate`. */
  memoryType?: MemoryType;
  eventDate?: Date | string;
  /** Default a fresh UUID; storing again under the same id replaces the memory. */
  id?: string;
  /** Keep one memory per identical text in the namespace and user (default true). */
  deduplicate?: boolean;
}

export interface RecallOptions {
  /** Default 10, at most 100. */
  limit?: number;
  offset?: number;
  /** Only memories at most this cosine distance away (0 identical, 1 unrelated). */
  distanceThreshold?: number;
  /** Only memories with at least one of these topics. */
  topics?: string[];
  memoryType?: MemoryType;
  /** Only memories remembered in this session (default: every session). */
  sessionId?: string;
}

const CreateAnswerSchema = AckResponseSchema.extend({ ids: z.array(z.string()).optional(), deduplicated: z.array(z.boolean()).optional() });

/**
 * An agent's client of system memory (our memory service, or Redis's Agent
 * Memory Server: the same REST API). Working memory is the session
 * `contextId`'s; long-term memories are kept in `namespace` / `userId` when
 * given. Every failure is thrown as a `MemoryServiceError` naming the service.
 *
 * @example
 * const memory = new AgentMemory({ namespace: 'travel' }); // AGENT_MEMORY_URL, CONTEXT_ID
 * await memory.remember('The user prefers window seats', { topics: ['travel'] });
 * const [best] = await memory.recall('Where does the user like to sit?');
 * await memory.addToWorkingMemory({ messages: [{ role: 'user', content: 'Book me a flight' }] });
 */
export class AgentMemory {
  readonly url: string;
  readonly contextId: string;
  readonly namespace: string | undefined;
  readonly userId: string | undefined;
  readonly #timeoutMs: number;

  readonly #token: string | undefined;

  constructor(options: AgentMemoryOptions = {}) {
    const config = agentMemoryConfig({ url: options.url, contextId: options.contextId, ...(options.env ? { env: options.env } : {}) });
    this.url = config.url;
    this.contextId = config.contextId;
    this.#token = options.token ?? memoryToken(options.env ?? process.env);
    this.namespace = options.namespace;
    this.userId = options.userId;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** The session's working memory; an empty one when nothing was written yet. */
  async getWorkingMemory(): Promise<WorkingMemoryResponse> {
    const found = await this.#call({
      method: 'GET',
      path: `/v1/working-memory/${encodeURIComponent(this.contextId)}`,
      query: this.#scope(),
      schema: WorkingMemoryResponseSchema,
      notFound: 'undefined',
    });
    return found ?? this.#emptyWorkingMemory();
  }

  /**
   * Appends messages and structured memories to the session's working
   * memory and merges `data` into its data (get, modify, put: concurrent
   * writers of one session may overwrite each other, as with AMS).
   * Structured memories are promoted to long-term memory by the service.
   */
  async addToWorkingMemory(options: {
    messages?: MemoryMessageInput[];
    memories?: Array<{ text: string } & RememberOptions>;
    data?: Record<string, JsonValue>;
    ttlSeconds?: number;
  }): Promise<WorkingMemoryResponse> {
    const { context_percentage_total_used: _a, context_percentage_until_summarization: _b, ...current } = await this.getWorkingMemory();
    const body = {
      ...current,
      messages: [...current.messages, ...(options.messages ?? []).map((m) => ({ ...m, created_at: m.created_at ?? new Date().toISOString() }))],
      memories: [
        ...current.memories,
        ...(options.memories ?? []).map(({ text, ...rest }) => ({ ...this.#record(text, rest), memory_type: rest.memoryType ?? 'semantic' })),
      ],
      data: { ...current.data, ...options.data },
      ...(options.ttlSeconds === undefined ? {} : { ttl_seconds: options.ttlSeconds }),
    };
    return this.#call({
      method: 'PUT',
      path: `/v1/working-memory/${encodeURIComponent(this.contextId)}`,
      query: this.#scope(),
      body,
      schema: WorkingMemoryResponseSchema,
    });
  }

  /** Stores a long-term memory; answers the id it is kept under (an existing one when it was a duplicate). */
  async remember(text: string, options: RememberOptions = {}): Promise<{ id: string; deduplicated: boolean }> {
    const record = this.#record(text, options);
    const answer = await this.#call({
      method: 'POST',
      path: '/v1/long-term-memory/',
      body: { memories: [record], deduplicate: options.deduplicate ?? true },
      schema: CreateAnswerSchema,
    });
    return { id: answer.ids?.[0] ?? record.id, deduplicated: answer.deduplicated?.[0] ?? false };
  }

  /**
   * The long-term memories nearest to `query` in meaning, nearest first, each
   * with its distance `dist`. `topics: []` (any of no topics) matches nothing.
   */
  async recall(query: string, options: RecallOptions = {}): Promise<MemoryRecordResult[]> {
    if (options.topics?.length === 0) return [];
    const body = {
      text: query,
      limit: options.limit ?? 10,
      offset: options.offset ?? 0,
      ...this.#filters(),
      ...(options.distanceThreshold === undefined ? {} : { distance_threshold: options.distanceThreshold }),
      ...(options.topics ? { topics: { any: options.topics } } : {}),
      ...(options.memoryType ? { memory_type: { eq: options.memoryType } } : {}),
      ...(options.sessionId ? { session_id: { eq: options.sessionId } } : {}),
    };
    return (await this.#call({ method: 'POST', path: '/v1/long-term-memory/search', body, schema: MemoryRecordResultsSchema })).memories;
  }

  /** The messages to send to a model for `query`: the session's summary and conversation, related long-term memories, then the query (AMS's order). */
  async memoryPrompt(query: string, options: { limit?: number; distanceThreshold?: number } = {}): Promise<MemoryPromptResponse> {
    const body = {
      query,
      session: { session_id: this.contextId, ...this.#scope() },
      long_term_search: {
        limit: options.limit ?? 10,
        ...this.#filters(),
        ...(options.distanceThreshold === undefined ? {} : { distance_threshold: options.distanceThreshold }),
      },
    };
    return this.#call({ method: 'POST', path: '/v1/memory/prompt', body, schema: MemoryPromptResponseSchema });
  }

  /** Deletes long-term memories by id, only within this memory's namespace and user (another scope's record stays); answers how many were deleted. */
  async forget(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const ack = await this.#call({
      method: 'DELETE',
      path: '/v1/long-term-memory',
      query: { memory_ids: [...ids], ...this.#scope() },
      schema: AckResponseSchema,
    });
    return Number(/deleted (\d+)/.exec(ack.status)?.[1] ?? 0);
  }

  #scope(): Record<string, string> {
    return { ...(this.namespace ? { namespace: this.namespace } : {}), ...(this.userId ? { user_id: this.userId } : {}) };
  }

  #filters(): Record<string, { eq: string }> {
    return { ...(this.namespace ? { namespace: { eq: this.namespace } } : {}), ...(this.userId ? { user_id: { eq: this.userId } } : {}) };
  }

  #record(text: string, options: RememberOptions) {
    const eventDate = options.eventDate instanceof Date ? options.eventDate.toISOString() : options.eventDate;
    return {
      id: options.id ?? randomUUID(),
      text,
      session_id: this.contextId,
      ...(this.namespace ? { namespace: this.namespace } : {}),
      ...(this.userId ? { user_id: this.userId } : {}),
      ...(options.topics ? { topics: options.topics } : {}),
      ...(options.entities ? { entities: options.entities } : {}),
      memory_type: options.memoryType ?? 'semantic',
      ...(eventDate ? { event_date: eventDate } : {}),
    };
  }

  #emptyWorkingMemory(): WorkingMemoryResponse {
    const now = new Date().toISOString();
    return {
      messages: [],
      memories: [],
      data: {},
      context: null,
      user_id: this.userId ?? null,
      tokens: 0,
      session_id: this.contextId,
      namespace: this.namespace ?? null,
      long_term_memory_strategy: { strategy: 'discrete', config: {} },
      ttl_seconds: null,
      last_accessed: now,
      created_at: now,
      updated_at: now,
      context_percentage_total_used: null,
      context_percentage_until_summarization: null,
    };
  }

  async #call<S extends z.ZodType>(request: {
    method: string;
    path: string;
    query?: Record<string, string | string[]>;
    body?: unknown;
    schema: S;
    notFound: 'undefined';
  }): Promise<z.output<S> | undefined>;
  async #call<S extends z.ZodType>(request: {
    method: string;
    path: string;
    query?: Record<string, string | string[]>;
    body?: unknown;
    schema: S;
  }): Promise<z.output<S>>;
  async #call<S extends z.ZodType>(request: {
    method: string;
    path: string;
    query?: Record<string, string | string[]>;
    body?: unknown;
    schema: S;
    notFound?: 'undefined';
  }): Promise<z.output<S> | undefined> {
    const target = new URL(`${this.url}${request.path}`);
    for (const [name, value] of Object.entries(request.query ?? {})) for (const v of [value].flat()) target.searchParams.append(name, v);
    const where = `${request.method} ${target.pathname}`;
    let response: Response;
    try {
      response = await fetch(target, {
        method: request.method,
        headers: {
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(this.#token === undefined ? {} : { authorization: `Bearer ${this.#token}` }),
        },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (cause) {
      const timedOut = cause instanceof Error && cause.name === 'TimeoutError';
      const detail = timedOut
        ? `no answer within ${this.#timeoutMs} ms`
        : cause instanceof Error
          ? ((cause.cause as Error | undefined)?.message ?? cause.message)
          : String(cause);
      throw new MemoryServiceError({
        code: 'memory_unavailable',
        url: this.url,
        message: `The memory service at ${this.url} is not reachable (${where}: ${detail}). Start it with \`framework-cli serve memory\` or \`framework-cli up\`.`,
        cause,
      });
    }
    const text = await response.text();
    const json = parseJsonOrUndefined(text);
    if (response.status === 404 && request.notFound === 'undefined') return undefined;
    if (!response.ok) {
      const error = MemoryErrorBodySchema.safeParse(json);
      const serviceCode = error.success ? error.data.code : undefined;
      const said = error.success
        ? (error.data.message ?? (typeof error.data.detail === 'string' ? error.data.detail : JSON.stringify(error.data.detail)))
        : text.slice(0, 200);
      throw new MemoryServiceError({
        code: response.status === 503 ? 'memory_unavailable' : 'memory_error',
        url: this.url,
        status: response.status,
        ...(serviceCode ? { serviceCode } : {}),
        message: `The memory service at ${this.url} answered ${where} with ${response.status}${serviceCode ? ` ${serviceCode}` : ''}: ${said}`,
      });
    }
    const parsed = request.schema.safeParse(json);
    if (!parsed.success) {
      throw new MemoryServiceError({
        code: 'memory_error',
        url: this.url,
        status: response.status,
        message: `The memory service at ${this.url} answered ${where} with something that is not the memory API: ${parsed.error.issues[0]?.message ?? 'unexpected shape'}.`,
      });
    }
    return parsed.data;
  }
}

/** AGENT_MEMORY_TOKEN, else the first token of AGENT_MEMORY_TOKEN_FILE (what `create swarm` writes); undefined when neither is set. */
function memoryToken(env: Env): string | undefined {
  const direct = env.AGENT_MEMORY_TOKEN?.trim();
  if (direct) return direct;
  const file = env.AGENT_MEMORY_TOKEN_FILE?.trim();
  return file ? readTokenFile(file, 'AGENT_MEMORY_TOKEN_FILE')[0] : undefined;
}
