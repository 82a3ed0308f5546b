/**
 * A tool call the model asked for. `arguments` is what the model sent,
 * parsed when it was JSON text: normally an object, a string when it could
 * not be parsed.
 */
export interface ChatToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/**
 * One chat message as sent to a model runtime. An assistant message may
 * carry the `tool_calls` it asked for; each result comes back as a `tool`
 * message naming the call (`tool_call_id`) and the tool (`name`).
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** Assistant messages only: the tool calls the model asked for. */
  tool_calls?: ChatToolCall[];
  /** Tool messages only: the id of the call this is the result of. */
  tool_call_id?: string;
  /** Tool messages only: the tool's name. */
  name?: string;
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

/** A copy of `message` with only the fields of the contract (no extra keys, no shared arrays). */
export function copyChatMessage(message: ChatMessage): ChatMessage {
  const copy: ChatMessage = { role: message.role, content: message.content };
  if (message.tool_calls !== undefined) {
    copy.tool_calls = message.tool_calls.map((call) => ({ id: call.id, name: call.name, arguments: structuredClone(call.arguments) }));
  }
  if (message.tool_call_id !== undefined) copy.tool_call_id = message.tool_call_id;
  if (message.name !== undefined) copy.name = message.name;
  return copy;
}
