import { isPlainObject } from './json.js';

/**
 * What a task yields. The `type` names are stable: they are the SSE `event:`
 * names of the front door and the event kinds of every stream in the toolkit.
 */
export type AgentResponse =
  | {
      readonly type: 'status';
      readonly text: string;
      /** Structured form of the status for clients that render it (a tool call: `{tool, arguments, result}`). */
      readonly data?: Readonly<Record<string, unknown>>;
    }
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'result'; readonly data: Readonly<Record<string, unknown>> }
  | {
      readonly type: 'input_required';
      readonly text: string;
      readonly actionType?: string;
      /** Structured form of the question for clients that render it (a plan: `plan_id` and `plan`); the text stays complete on its own. */
      readonly data?: Readonly<Record<string, unknown>>;
    }
  | { readonly type: 'error'; readonly code: string; readonly message: string };

export type AgentResponseType = AgentResponse['type'];

/** The action type that marks an `input_required` as a plan awaiting approval. */
export const PLAN_CONFIRMATION = 'plan_confirmation';

const TYPES: ReadonlySet<string> = new Set(['status', 'text', 'result', 'input_required', 'error']);

function requireString(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new TypeError(`${what} must be a string, got ${typeof value}`);
  return value;
}

/**
 * Constructors for task responses.
 *
 * @example
 * agent.task({ name: 'greet' }, async function* ({ query }) {
 *   yield AgentResponse.status('Thinking...');
 *   yield AgentResponse.result({ answer: `Hello, ${String(query)}` });
 * });
 */
export const AgentResponse = {
  status(text: string, options: { data?: Readonly<Record<string, unknown>> } = {}): AgentResponse {
    requireString(text, 'AgentResponse.status(text)');
    if (options.data !== undefined && !isPlainObject(options.data)) throw new TypeError('AgentResponse.status(text, { data }) takes a plain object');
    return { type: 'status', text, ...(options.data === undefined ? {} : { data: options.data }) };
  },
  text(text: string): AgentResponse {
    return { type: 'text', text: requireString(text, 'AgentResponse.text(text)') };
  },
  result(data: Readonly<Record<string, unknown>>): AgentResponse {
    if (!isPlainObject(data)) throw new TypeError('AgentResponse.result(data) takes a plain object');
    return { type: 'result', data };
  },
  inputRequired(text: string, options: { actionType?: string; data?: Readonly<Record<string, unknown>> } = {}): AgentResponse {
    requireString(text, 'AgentResponse.inputRequired(text)');
    if (options.data !== undefined && !isPlainObject(options.data)) throw new TypeError('AgentResponse.inputRequired(text, { data }) takes a plain object');
    return {
      type: 'input_required',
      text,
      ...(options.actionType === undefined ? {} : { actionType: options.actionType }),
      ...(options.data === undefined ? {} : { data: options.data }),
    };
  },
  error(message: string, options: { code?: string } = {}): AgentResponse {
    return { type: 'error', code: options.code ?? 'task_error', message: requireString(message, 'AgentResponse.error(message)') };
  },
  /** True when `value` has the shape of an AgentResponse. */
  is(value: unknown): value is AgentResponse {
    if (!isPlainObject(value) || typeof value.type !== 'string' || !TYPES.has(value.type)) return false;
    switch (value.type as AgentResponseType) {
      case 'status':
        return typeof value.text === 'string' && (value.data === undefined || isPlainObject(value.data));
      case 'text':
        return typeof value.text === 'string';
      case 'input_required':
        return (
          typeof value.text === 'string' &&
          (value.actionType === undefined || typeof value.actionType === 'string') &&
          (value.data === undefined || isPlainObject(value.data))
        );
      case 'result':
        return isPlainObject(value.data);
      case 'error':
        return typeof value.code === 'string' && typeof value.message === 'string';
    }
  },
} as const;
