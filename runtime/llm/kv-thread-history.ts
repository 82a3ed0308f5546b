import type { Redis } from 'ioredis';
import { z } from 'zod';
import { clientLocation, closeKvClient, createKvClient, kvCall, redactUrl } from '../core/kv-client.js';
import { requirePositiveInt } from './in-process-thread-history.js';
import { copyChatMessage, type ChatMessage, type ThreadHistory } from './thread-history.js';

export interface KvThreadHistoryOptions {
  /** Redis URL; a client is created and closed by this memory. Ignored when `client` is given. */
  url?: string;
  /** A client owned by the caller; `close()` leaves it open. */
  client?: Redis;
  /** Messages kept per thread; the oldest are dropped beyond it. */
  maxMessages: number;
  /** Prefix of every key; default `fw:`. */
  keyPrefix?: string;
  /** Seconds a thread lives after its last message; default 7 days. */
  ttlSeconds?: number;
}

export const DEFAULT_THREAD_TTL_SECONDS = 7 * 24 * 3600;

/** Stored entries are validated on the way back: Redis content is network input. */
const ChatMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string(),
  tool_calls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.unknown() })).optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
});

function parseEntry(raw: string): ChatMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const parsed = ChatMessageSchema.safeParse(value);
  return parsed.success ? copyChatMessage(parsed.data as ChatMessage) : undefined;
}

/**
 * Conversation history in Redis: one list per thread at
 * `<keyPrefix>thread:<threadId>`, trimmed to `maxMessages` and expiring
 * `ttlSeconds` after the last append. It survives restarts and is shared by
 * replicas. Unreachable Redis rejects with `StoreUnavailableError`; a corrupt
 * entry is skipped.
 *
 * @example
 * const memory = new KvThreadHistory({ url: 'redis://127.0.0.1:6379', maxMessages: 40 });
 * await invoke(llmConfig, 'Hi, I am Ada', { threadId: 't1', memory });
 * await memory.close();
 */
export class KvThreadHistory implements ThreadHistory {
  readonly backend = 'kv';
  readonly maxMessages: number;
  readonly ttlSeconds: number;
  readonly keyPrefix: string;
  /** The Redis address without credentials, for messages. */
  readonly location: string;
  readonly #client: Redis;
  readonly #ownsClient: boolean;

  constructor(options: KvThreadHistoryOptions) {
    this.maxMessages = requirePositiveInt(options.maxMessages, 'maxMessages');
    this.ttlSeconds = requirePositiveInt(options.ttlSeconds ?? DEFAULT_THREAD_TTL_SECONDS, 'ttlSeconds');
    this.keyPrefix = options.keyPrefix ?? 'fw:';
    if (options.client) {
      this.#client = options.client;
      this.#ownsClient = false;
      this.location = clientLocation(options.client, options.url);
    } else if (options.url) {
      this.#client = createKvClient({ url: options.url });
      this.#ownsClient = true;
      this.location = redactUrl(options.url);
    } else {
      throw new TypeError('KvThreadHistory needs a Redis `url` or a `client`');
    }
  }

  #key(threadId: string): string {
    return `${this.keyPrefix}thread:${threadId}`;
  }

  async load(threadId: string): Promise<ChatMessage[]> {
    const key = this.#key(threadId);
    const raw = await kvCall(this.location, this.#client, (client) => client.lrange(key, -this.maxMessages, -1));
    return raw.map(parseEntry).filter((m): m is ChatMessage => m !== undefined);
  }

  async append(threadId: string, messages: readonly ChatMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const key = this.#key(threadId);
    const entries = messages.map((m) => JSON.stringify(copyChatMessage(m)));
    await kvCall(this.location, this.#client, async (client) => {
      const results = await client
        .multi()
        .rpush(key, ...entries)
        .ltrim(key, -this.maxMessages, -1)
        .expire(key, this.ttlSeconds)
        .exec();
      if (results === null) throw new Error('the MULTI transaction was discarded');
      const failed = results.find(([error]) => error !== null);
      if (failed) throw failed[0];
    });
  }

  async clear(threadId: string): Promise<void> {
    const key = this.#key(threadId);
    await kvCall(this.location, this.#client, (client) => client.del(key));
  }

  async close(): Promise<void> {
    if (this.#ownsClient) await closeKvClient(this.#client);
  }
}
