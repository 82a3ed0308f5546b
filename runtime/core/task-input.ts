import { isPlainObject } from './json.js';

/** The query a task receives: exactly what the caller sent. */
export type TaskQuery = string | Readonly<Record<string, unknown>>;

export interface ParsedTaskInput {
  text: string;
  contextId: string;
}

export const DEFAULT_CONTEXT_ID = 'default';

/**
 * Parses structured task input: a JSON string or an object with `text` and an
 * optional `context_id` (`contextId` is accepted too). A plain string that is
 * not a JSON object is the text itself. A missing context id becomes `default`.
 *
 * @example
 * parseTaskInput('{"text":"hi","context_id":"c1"}') // { text: 'hi', contextId: 'c1' }
 * parseTaskInput('hello')                            // { text: 'hello', contextId: 'default' }
 */
export function parseTaskInput(query: unknown): ParsedTaskInput {
  let value: unknown = query;
  if (typeof query === 'string') {
    const trimmed = query.trimStart();
    if (trimmed.startsWith('{')) {
      try {
        value = JSON.parse(query);
      } catch {
        value = query;
      }
    }
  }
  if (typeof value === 'string') return { text: value, contextId: DEFAULT_CONTEXT_ID };
  if (isPlainObject(value)) {
    const text = value.text;
    if (typeof text !== 'string') {
      throw new TypeError('Structured task input needs a string "text" field');
    }
    const contextId = value.context_id ?? value.contextId;
    return {
      text,
      contextId: typeof contextId === 'string' && contextId.length > 0 ? contextId : DEFAULT_CONTEXT_ID,
    };
  }
  throw new TypeError(`Task input must be a string or an object with "text", got ${value === null ? 'null' : typeof value}`);
}
