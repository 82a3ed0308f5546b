import { inSpan } from '../core/telemetry/tracing.js';
import { Ajv, type ValidateFunction } from 'ajv';
import { raceAbort } from '../core/abort.js';
import { AbortedError } from '../core/errors/aborted-error.js';
import { nonFiniteNumberAt } from '../core/non-finite-number.js';
import type { AgentTool, ToolCallEvent } from './agent-tool.js';
import { ToolLoopPause } from './tool-pause.js';
import type { ChatTool } from './language-model.js';
import type { ChatMessage, ChatToolCall } from './thread-history.js';

/** What model APIs accept as a function name. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** One validator per schema object, shared by every call; `addUsedSchema: false` lets two schemas share an `$id`. */
const ajv = new Ajv({ allErrors: true, strict: false, addUsedSchema: false });
const validators = new WeakMap<object, ValidateFunction>();

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function validatorOf(tool: AgentTool): ValidateFunction {
  const cached = validators.get(tool.inputSchema);
  if (cached) return cached;
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(tool.inputSchema);
  } catch (error) {
    throw new TypeError(`invoke({ tools }): tool '${tool.name}' has an invalid inputSchema: ${describe(error)}`, { cause: error });
  }
  validators.set(tool.inputSchema, validate);
  return validate;
}

/** A tool call whose arguments were parsed when they came as JSON text; `parseError` when that failed. */
export interface ParsedToolCall {
  call: ChatToolCall;
  parseError?: string;
}

/** Parses JSON-text arguments (the OpenAI wire); an empty text is no arguments (`{}`). */
export function parseToolCall(call: ChatToolCall): ParsedToolCall {
  if (typeof call.arguments !== 'string') return { call };
  const text = call.arguments.trim();
  if (text === '') return { call: { ...call, arguments: {} } };
  try {
    return { call: { ...call, arguments: JSON.parse(text) as unknown } };
  } catch (error) {
    return { call, parseError: `arguments are not valid JSON (${describe(error)})` };
  }
}

type Outcome = { result: unknown; content: string } | { error: string };

/**
 * The tools of one `invoke`: checked when built (unique valid names, a
 * function `run`, a compilable schema), offered to the model as
 * `definitions`, and run one call at a time by `run`.
 */
export class ToolSet {
  readonly definitions: readonly ChatTool[];
  readonly #tools = new Map<string, { tool: AgentTool; validate: ValidateFunction }>();

  constructor(tools: readonly AgentTool[]) {
    for (const tool of tools) {
      if (typeof tool?.name !== 'string' || !TOOL_NAME.test(tool.name)) {
        throw new TypeError(`invoke({ tools }): tool name ${JSON.stringify(tool?.name)} must be 1-64 letters, digits, '_' or '-'`);
      }
      if (this.#tools.has(tool.name)) throw new TypeError(`invoke({ tools }): two tools are named '${tool.name}'`);
      if (typeof tool.run !== 'function') throw new TypeError(`invoke({ tools }): tool '${tool.name}' has no run function`);
      if (typeof tool.inputSchema !== 'object' || tool.inputSchema === null) {
        throw new TypeError(`invoke({ tools }): tool '${tool.name}' needs an inputSchema object`);
      }
      this.#tools.set(tool.name, { tool, validate: validatorOf(tool) });
    }
    this.definitions = tools.map((t) => ({ name: t.name, description: String(t.description ?? ''), inputSchema: t.inputSchema }));
  }

  /**
   * Runs one call and returns the `tool` message for the model. Unknown
   * tools, unparsable or invalid arguments (a number that is not finite,
   * such as `1e400` read as Infinity, included) and throwing tools become an
   * `{"error": ...}` message; only an abort (`AbortedError`) and a
   * `ToolLoopPause` thrown by the tool reject.
   */
  async run(parsed: ParsedToolCall, options: { signal?: AbortSignal; onToolCall?: (event: ToolCallEvent) => void | Promise<void> }): Promise<ChatMessage> {
    const { call } = parsed;
    const attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': call.name, 'gen_ai.tool.call.id': call.id };
    const outcome = await inSpan(`execute_tool ${call.name}`, { attributes }, async (span) => {
      try {
        const settled = await this.#outcome(parsed, options.signal);
        if ('error' in settled) span.setAttribute('error.type', 'tool_error');
        return settled;
      } catch (error) {
        // A pause is the start of an approval wait, not a failure: an event, and the span ends here (a wait of hours is no open span).
        if (error instanceof ToolLoopPause) span.addEvent('approval.requested', { 'gen_ai.tool.name': call.name });
        throw error;
      }
    });
    if (options.signal?.aborted) throw new AbortedError({ cause: options.signal.reason });
    const base = { id: call.id, name: call.name, arguments: call.arguments };
    await options.onToolCall?.('error' in outcome ? { ...base, error: outcome.error } : { ...base, result: outcome.result });
    const content = 'error' in outcome ? JSON.stringify({ error: outcome.error }) : outcome.content;
    return { role: 'tool', content, tool_call_id: call.id, name: call.name };
  }

  async #outcome(parsed: ParsedToolCall, signal: AbortSignal | undefined): Promise<Outcome> {
    const { call } = parsed;
    const entry = this.#tools.get(call.name);
    if (!entry) return { error: `unknown tool '${call.name}'; available tools: ${[...this.#tools.keys()].join(', ')}` };
    if (parsed.parseError !== undefined) return { error: parsed.parseError };
    // JSON Schema's "number" takes Infinity (what 1e400 parses to): refused here, before any check or gate sees it.
    const overflow = nonFiniteNumberAt(call.arguments);
    if (overflow !== undefined) {
      return {
        error: `invalid arguments for '${call.name}': ${overflow === '' ? 'arguments' : `arguments.${overflow}`} is not a finite number (a number as large as 1e400 cannot be read exactly); send a finite JSON number`,
      };
    }
    if (!entry.validate(call.arguments)) {
      return { error: `invalid arguments for '${call.name}': ${ajv.errorsText(entry.validate.errors, { dataVar: 'arguments' })}` };
    }
    let result: unknown;
    try {
      const running = Promise.resolve().then(() => entry.tool.run(call.arguments, { toolCallId: call.id, ...(signal ? { signal } : {}) }));
      result = await raceAbort(running, signal);
    } catch (error) {
      if (signal?.aborted) throw new AbortedError({ cause: signal.reason });
      // A pause is not a failure: the loop stops before this call (see ToolLoopPause).
      if (error instanceof ToolLoopPause) throw error;
      return { error: `tool '${call.name}' failed: ${describe(error)}` };
    }
    try {
      const content = typeof result === 'string' ? result : (JSON.stringify(result) ?? 'null');
      return { result, content };
    } catch (error) {
      return { error: `tool '${call.name}' returned a value that is not JSON: ${describe(error)}` };
    }
  }
}
