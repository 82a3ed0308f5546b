/** One chat message as sent to a model runtime. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * Conversation history per `threadId`, read before and appended after each
 * `invoke`. Two backends: in-process (`memory`) and Redis (`kv`), chosen like
 * the session store; both keep at most `maxMessages` per thread.
 */
export interface ThreadHistory {
  readonly backend: 'memory' | 'kv';
  readonly maxMessages: number;
  /** The thread's messages, oldest first; `[]` for a thread not seen before. */
  load(threadId: string): Promise<ChatMessage[]>;
  /** Appends messages and drops the oldest beyond `maxMessages`. */
  append(threadId: string, messages: readonly ChatMessage[]): Promise<void>;
  clear(threadId: string): Promise<void>;
  close(): Promise<void>;
}
