import { findKnownModel } from './known-models.js';
import type { EngineTool, EngineToolCall, EngineToolChoice } from './tool-calling.js';

/** The engine's message, option and result shapes as far as the choice step reads them (`llama-engine.ts`). */
interface StepMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  toolCalls?: readonly EngineToolCall[];
}
interface StepOptions {
  num_ctx?: number;
  temperature?: number;
  num_predict?: number;
  repeat_penalty?: number;
}

/** The word the choice step's grammar offers beside the tool names for "no tool: answer in text". */
export const ANSWER_CHOICE = 'answer';

/** What the choice step needs of a request. */
interface ChoiceRequest {
  messages: readonly StepMessage[];
  tools?: readonly EngineTool[];
  toolChoice?: EngineToolChoice;
  raw?: boolean;
  options?: StepOptions;
}

/**
 * Whether `auto` runs as two steps for this model: first the model picks one
 * of the tools or a text answer under a grammar (`{"action": <name> | "answer"}`),
 * then the reply is a call to that tool, or text. For models that never start
 * a call in their chat wrapper's syntax on their own (SmolLM2-135M: 0 of 10
 * prompts that need a tool under plain `auto`, 5 of 10 with this step, and
 * no call on any of 10 prompts that need none; `bench/model-tools.ts`).
 * Only when the last message is the user's: after a tool result the model answers.
 */
export function usesChoiceStep(model: string, request: ChoiceRequest): boolean {
  if (!findKnownModel(model)?.choosesNoTools || request.raw) return false;
  if ((request.toolChoice ?? 'auto') !== 'auto' || !request.tools?.length) return false;
  return request.messages.at(-1)?.role === 'user';
}

/** The choice step's request: the tools listed in a system message, the reply a grammar-bound choice among them and "answer". */
export function choiceStepRequest(request: ChoiceRequest): { messages: StepMessage[]; format: Record<string, unknown>; options: StepOptions } {
  const tools = request.tools ?? [];
  const listed = tools.map((t) => `- ${t.name}${t.description ? `: ${t.description}` : ''}`).join('\n');
  const instruction = `You can use these tools:\n${listed}\nIf the user's request needs one of them, set "action" to its name. Otherwise set "action" to "${ANSWER_CHOICE}".`;
  return {
    messages: [{ role: 'system', content: instruction }, ...request.messages.filter((m) => m.role !== 'system' && m.role !== 'tool' && !m.toolCalls?.length)],
    format: { type: 'object', properties: { action: { enum: [...tools.map((t) => t.name), ANSWER_CHOICE] } }, required: ['action'] },
    // Greedy and short: the choice is a few tokens.
    options: { ...(request.options?.num_ctx === undefined ? {} : { num_ctx: request.options.num_ctx }), temperature: 0, num_predict: 32, repeat_penalty: 1 },
  };
}

/** The tool choice the step's reply stands for: the named tool, or `none` for a text answer (also for a reply that does not parse). */
export function pickedChoice(result: { text: string }, tools: readonly EngineTool[]): EngineToolChoice {
  try {
    const action = (JSON.parse(result.text) as { action?: unknown }).action;
    return typeof action === 'string' && tools.some((t) => t.name === action) ? { name: action } : 'none';
  } catch {
    return 'none';
  }
}
