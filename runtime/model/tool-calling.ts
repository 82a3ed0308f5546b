import type { ValidateFunction } from 'ajv';
import type { ChatHistoryItem, ChatModelFunctionCall, ChatModelFunctions, ChatModelResponse, ChatWrapper, GbnfJsonSchema } from 'node-llama-cpp';

/** A tool a request offers the model, as both Ollama and OpenAI describe one (`function.name`, `description`, `parameters`). */
export interface EngineTool {
  name: string;
  description?: string;
  /** A JSON schema of the arguments object; the call's arguments are generated under a grammar made from it. */
  parameters?: Record<string, unknown>;
}

/** A tool ready for generation: the grammar schema of its arguments and the validator of the schema it was given. */
export interface CheckedTool {
  name: string;
  description?: string;
  grammar?: GbnfJsonSchema;
  /** The grammar schema as the prompt describes it (integer ranges as ranges, not lists). */
  documented?: GbnfJsonSchema;
  validate?: ValidateFunction;
}

/** One tool call the model made, or an earlier one sent back in the conversation. */
export interface EngineToolCall {
  /** OpenAI's `id`, which the `tool` message answering it names as `tool_call_id`. */
  id?: string;
  name: string;
  arguments: unknown;
}

/**
 * `auto`: the model chooses between text and tool calls; `none`: text only;
 * `required`: a call to one of the tools; `{ name }`: a call to that tool.
 */
export type EngineToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** What node-llama-cpp needs of the chat history's messages (the engine's `EngineMessage`). */
interface HistoryMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  toolCalls?: readonly EngineToolCall[];
  toolCallId?: string;
  toolName?: string;
}

/** The tools (their grammar schemas, `checkedTools`) as node-llama-cpp's functions, keeping only those `choice` allows (none for `none`). */
export function functionsOf(
  tools: readonly CheckedTool[],
  choice: EngineToolChoice,
  view: 'grammar' | 'documented' = 'grammar',
): ChatModelFunctions | undefined {
  if (tools.length === 0 || choice === 'none') return undefined;
  const offered = typeof choice === 'object' ? tools.filter((t) => t.name === choice.name) : tools;
  const functions: Record<string, ChatModelFunctions[string]> = {};
  for (const tool of offered) {
    functions[tool.name] = {
      ...(tool.description ? { description: tool.description } : {}),
      ...(tool[view] ? { params: tool[view] } : {}),
    };
  }
  return functions;
}

/**
 * The chat wrapper `base` describing the functions in the prompt as
 * `documented` says (integer ranges as ranges), while generation uses their grammar schemas.
 */
export function documentedWrapper(base: ChatWrapper, documented: ChatModelFunctions | undefined): ChatWrapper {
  const wrapper = Object.create(base) as ChatWrapper;
  wrapper.generateContextState = (options) =>
    base.generateContextState({ ...options, ...(options.availableFunctions && documented ? { availableFunctions: documented } : {}) });
  return wrapper;
}

/**
 * The chat wrapper `base` with its function-calling mode engaged from the
 * reply's first token and no way out, so the reply must be a call: the
 * function name and then its arguments are generated under node-llama-cpp's
 * grammars. The call prefix (`||call: ` for ChatML) ends the prompt, so the
 * model sees the call syntax it was told about.
 */
export function forcedCallWrapper(base: ChatWrapper, lib: typeof import('node-llama-cpp')): ChatWrapper {
  const forced = Object.create(base) as ChatWrapper;
  forced.generateContextState = (options) => {
    const state = base.generateContextState(options);
    const prefix = base.settings.functions.call.prefix;
    return {
      contextText: lib.LlamaText([state.contextText, lib.LlamaText(prefix)]),
      stopGenerationTriggers: state.stopGenerationTriggers,
      ...(state.ignoreStartText ? { ignoreStartText: state.ignoreStartText } : {}),
      functionCall: { initiallyEngaged: true, disengageInitiallyEngaged: [] },
    };
  };
  return forced;
}

/**
 * The conversation as node-llama-cpp's chat history: an assistant message's
 * tool calls become function calls in its response, and the `tool` messages
 * after it their results (matched by `tool_call_id`, then by `tool_name`,
 * then in order). A tool result that answers no call is given as a user
 * message naming the tool. `continues` is true when the history ends with a
 * response whose calls got their results, which the model's reply continues.
 */
export function toolChatHistory(messages: readonly HistoryMessage[]): { history: ChatHistoryItem[]; continues: boolean } {
  const history: ChatHistoryItem[] = [];
  let open: { response: ChatModelResponse; calls: Array<{ call: ChatModelFunctionCall; id?: string; answered: boolean }> } | undefined;
  for (const m of messages) {
    if (m.role === 'tool') {
      const waiting = open?.calls.filter((c) => !c.answered) ?? [];
      const match =
        (m.toolCallId === undefined ? undefined : waiting.find((c) => c.id === m.toolCallId)) ??
        (m.toolName === undefined ? undefined : waiting.find((c) => c.call.name === m.toolName)) ??
        waiting[0];
      if (match) {
        match.call.result = toolResult(m.content);
        match.answered = true;
      } else {
        open = undefined;
        history.push({ type: 'user', text: `Result of ${m.toolName ?? 'a tool'}: ${m.content}` });
      }
      continue;
    }
    open = undefined;
    if (m.role === 'system') history.push({ type: 'system', text: m.content });
    else if (m.role === 'user') history.push({ type: 'user', text: m.content });
    else {
      const response: ChatModelResponse = { type: 'model', response: m.content ? [m.content] : [] };
      const calls = (m.toolCalls ?? []).map((c) => {
        const call: ChatModelFunctionCall = { type: 'functionCall', name: c.name, params: c.arguments, result: undefined };
        response.response.push(call);
        return { call, ...(c.id === undefined ? {} : { id: c.id }), answered: false };
      });
      history.push(response);
      if (calls.length > 0) open = { response, calls };
    }
  }
  const last = messages.at(-1);
  const continues = last?.role === 'tool' && open !== undefined && history.at(-1) === open.response;
  return { history, continues };
}

/** Tool call arguments sent back as a JSON string (OpenAI's form) as their value; an object stays as it is. */
export function argumentsValue(value: unknown): unknown {
  return typeof value === 'string' ? toolResult(value) : value;
}

/** A tool message's content as the call's result: its JSON value when it is JSON, else the text. */
function toolResult(content: string): unknown {
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
}
