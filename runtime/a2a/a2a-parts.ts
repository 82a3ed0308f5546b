import { Role, type Message, type Part } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';
import { isPlainObject } from '../core/json.js';
import type { TaskQuery } from '../core/task-input.js';

/** A text part. */
export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

/** A structured-data part. */
export function dataPart(data: Readonly<Record<string, unknown>>): Part {
  return { content: { $case: 'data', value: data }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

/** A message from the agent (role agent) with one text part. */
export function agentMessage(options: { text: string; taskId: string; contextId: string; metadata?: Record<string, unknown> }): Message {
  return {
    messageId: randomUUID(),
    contextId: options.contextId,
    taskId: options.taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(options.text)],
    metadata: options.metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A message from the user/caller (role user) carrying `payload` as a text part, or as a data part for an object. */
export function userMessage(options: { payload: string | Readonly<Record<string, unknown>>; contextId?: string; taskId?: string }): Message {
  return {
    messageId: randomUUID(),
    contextId: options.contextId ?? '',
    taskId: options.taskId ?? '',
    role: Role.ROLE_USER,
    parts: [typeof options.payload === 'string' ? textPart(options.payload) : dataPart(options.payload)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The text parts of `parts`, joined with newlines (undefined when there are none). */
export function partsText(parts: readonly Part[]): string | undefined {
  const texts = parts.flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []));
  return texts.length === 0 ? undefined : texts.join('\n');
}

/** The first data part's object (undefined when there is none). */
export function partsData(parts: readonly Part[]): Record<string, unknown> | undefined {
  for (const part of parts) if (part.content?.$case === 'data' && isPlainObject(part.content.value)) return part.content.value;
  return undefined;
}

/**
 * The task query a message carries, exactly as sent: its text (text parts
 * joined with newlines), or, for a message with only a data part, that
 * object. Nothing is wrapped in JSON on the way.
 */
export function queryFromMessage(message: Message): TaskQuery {
  return partsText(message.parts) ?? partsData(message.parts) ?? '';
}
