import { assertNever } from '../runtime/core/assert-never.js';
import { responseToJson } from '../runtime/core/task-events.js';
import type { ChatEvent } from './chat-event.js';

/** One NDJSON line of `chat --json`: `{"event": <kind>, "data": {...}}`, the front door's json event format plus `session` notices. */
export interface ChatEventDocument {
  event: ChatEvent['type'];
  data: Record<string, unknown>;
}

/**
 * The `--json` form of a chat event.
 *
 * @example
 * chatEventToJson({ type: 'status', text: 'Planning...' }); // { event: 'status', data: { text: 'Planning...' } }
 */
export function chatEventToJson(event: ChatEvent): ChatEventDocument {
  if (event.type === 'session') {
    return {
      event: 'session',
      data: { status: event.status, text: event.text, ...(event.contextId ? { context_id: event.contextId } : {}), ...(event.unsent ? { unsent: true } : {}) },
    };
  }
  return { event: event.type, data: responseToJson(event) };
}

/** A chat event as plain lines, for `chat --message` without `--json` and without a terminal UI. */
export function chatEventToText(event: ChatEvent): string {
  switch (event.type) {
    case 'session':
      return `(${event.text})`;
    case 'status':
      return `… ${event.text}`;
    case 'text':
    case 'input_required':
      return event.text;
    case 'result':
      return JSON.stringify(event.data, null, 2);
    case 'error':
      return `Error (${event.code}): ${event.message}`;
    default:
      return assertNever(event);
  }
}
