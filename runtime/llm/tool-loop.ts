import { throwIfAborted } from '../core/abort.js';
import type { ToolCallEvent } from './agent-tool.js';
import { ToolLoopLimitError } from './errors/tool-loop-limit-error.js';
import type { ChatRequest, ChatStreamEvent, LanguageModel } from './language-model.js';
import type { ChatMessage, ChatToolCall } from './thread-history.js';
import { ToolLoopPause, ToolLoopPausedError, type ToolLoopResume } from './tool-pause.js';
import { parseToolCall, type ParsedToolCall, type ToolSet } from './tool-set.js';

export const DEFAULT_MAX_TOOL_STEPS = 8;

/** One model reply as events: how the loop asks the model, streamed or not. */
export type ModelStep = (request: ChatRequest) => AsyncIterable<ChatStreamEvent>;

/** A non-streamed `chat` as events: the whole text in one chunk, then its tool calls. */
export function chatStep(model: LanguageModel): ModelStep {
  return async function* (request) {
    const result = await model.chat(request);
    if (result.text) yield { type: 'text', text: result.text };
    if (result.toolCalls?.length) yield { type: 'tool-calls', toolCalls: result.toolCalls };
    yield { type: 'finish', ...(result.finishReason === undefined ? {} : { finishReason: result.finishReason }) };
  };
}

/**
 * A streamed reply as events: `chatEvents` when the provider has it;
 * otherwise `chat` when tools are offered (so their calls are seen), and
 * `chatStream` text when not.
 */
export function streamStep(model: LanguageModel, withTools: boolean): ModelStep {
  if (model.chatEvents) return (request) => model.chatEvents!(request);
  if (withTools) return chatStep(model);
  return async function* (request) {
    for await (const text of model.chatStream(request)) yield { type: 'text', text };
    yield { type: 'finish' };
  };
}

export interface ToolLoopOptions {
  tools?: ToolSet;
  maxToolSteps: number;
  onToolCall?: (event: ToolCallEvent) => void | Promise<void>;
}

/** What the loop added to the conversation and the final reply. */
export interface ToolLoopResult {
  reply: string;
  /** Assistant messages (with their tool calls) and tool results, oldest first, ending with the final reply. */
  added: ChatMessage[];
}

/**
 * Asks the model, runs the tool calls it requests and sends their results
 * back, until it answers without tool calls. Yields text chunks as they come
 * (of the final reply, and any text the model writes alongside tool calls).
 * More than `maxToolSteps` rounds of tool calls reject with
 * `ToolLoopLimitError`. A tool that throws `ToolLoopPause` stops the loop
 * with `ToolLoopPausedError`; `resume` (its state and the answer to the
 * paused call) goes on from there: the rest of that round's calls, then the
 * model again (`maxToolSteps` counts from the resume).
 */
export async function* toolLoop(
  step: ModelStep,
  request: ChatRequest,
  options: ToolLoopOptions,
  resume?: ToolLoopResume,
): AsyncGenerator<string, ToolLoopResult> {
  const { tools } = options;
  const messages = resume ? [...resume.state.messages] : [...request.messages];
  const added: ChatMessage[] = resume ? [...resume.state.added] : [];
  const sent: ChatRequest = tools ? { ...request, tools: tools.definitions } : request;
  const runCalls = async (calls: readonly ParsedToolCall[]) => {
    for (const [i, call] of calls.entries()) {
      let result: ChatMessage;
      try {
        result = await tools!.run(call, {
          ...(request.signal ? { signal: request.signal } : {}),
          ...(options.onToolCall ? { onToolCall: options.onToolCall } : {}),
        });
      } catch (error) {
        if (error instanceof ToolLoopPause) throw new ToolLoopPausedError(error, { messages: [...messages], added: [...added], pending: calls.slice(i) });
        throw error;
      }
      messages.push(result);
      added.push(result);
    }
  };
  if (resume) {
    if (!tools) throw new TypeError('a paused tool loop can only be resumed with its tools');
    messages.push(resume.answer);
    added.push(resume.answer);
    await runCalls(resume.state.pending.slice(1));
  }
  for (let round = 0; ; round++) {
    throwIfAborted(request.signal);
    let text = '';
    const toolCalls: ChatToolCall[] = [];
    for await (const event of step({ ...sent, messages: [...messages] })) {
      if (event.type === 'text') {
        text += event.text;
        yield event.text;
      } else if (event.type === 'tool-calls') toolCalls.push(...event.toolCalls);
    }
    if (!tools || toolCalls.length === 0) {
      added.push({ role: 'assistant', content: text });
      return { reply: text, added };
    }
    if (round >= options.maxToolSteps) {
      throw new ToolLoopLimitError({ maxToolSteps: options.maxToolSteps, pendingTools: toolCalls.map((c) => c.name) });
    }
    const parsed = toolCalls.map(parseToolCall);
    const assistant: ChatMessage = { role: 'assistant', content: text, tool_calls: parsed.map((p) => p.call) };
    messages.push(assistant);
    added.push(assistant);
    await runCalls(parsed);
  }
}
