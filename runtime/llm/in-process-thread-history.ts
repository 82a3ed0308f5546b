import { copyChatMessage, type ChatMessage, type ThreadHistory } from './thread-history.js';

export interface InProcessThreadHistoryOptions {
  /** Messages kept per thread; the oldest are dropped beyond it. */
  maxMessages: number;
  /** Threads kept; the least recently used is evicted beyond it. Default 10 000. */
  maxThreads?: number;
}

export const DEFAULT_MAX_THREADS = 10_000;

export function requirePositiveInt(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${what} must be a positive integer, got ${value}`);
  return value;
}

/**
 * Conversation history in this process only: lost on restart and not shared
 * between replicas (use `KvThreadHistory` for that).
 *
 * @example
 * const memory = new InProcessThreadHistory({ maxMessages: 40 });
 * await invoke(llmConfig, 'Hi, I am Ada', { threadId: 't1', memory });
 */
export class InProcessThreadHistory implements ThreadHistory {
  readonly backend = 'memory';
  readonly maxMessages: number;
  readonly maxThreads: number;
  /** Map order is recency order: the first key is the least recently used. */
  readonly #threads = new Map<string, ChatMessage[]>();

  constructor(options: InProcessThreadHistoryOptions) {
    this.maxMessages = requirePositiveInt(options.maxMessages, 'maxMessages');
    this.maxThreads = requirePositiveInt(options.maxThreads ?? DEFAULT_MAX_THREADS, 'maxThreads');
  }

  /** Number of threads held, for tests and metrics. */
  get size(): number {
    return this.#threads.size;
  }

  async load(threadId: string): Promise<ChatMessage[]> {
    const messages = this.#threads.get(threadId);
    if (!messages) return [];
    this.#touch(threadId, messages);
    return messages.map(copyChatMessage);
  }

  async append(threadId: string, messages: readonly ChatMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const current = this.#threads.get(threadId) ?? [];
    const next = [...current, ...messages.map(copyChatMessage)].slice(-this.maxMessages);
    this.#touch(threadId, next);
    while (this.#threads.size > this.maxThreads) {
      const oldest = this.#threads.keys().next();
      if (oldest.done) break;
      this.#threads.delete(oldest.value);
    }
  }

  async clear(threadId: string): Promise<void> {
    this.#threads.delete(threadId);
  }

  async close(): Promise<void> {
    this.#threads.clear();
  }

  #touch(threadId: string, messages: ChatMessage[]): void {
    this.#threads.delete(threadId);
    this.#threads.set(threadId, messages);
  }
}
