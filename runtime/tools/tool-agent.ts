import { isDeepStrictEqual } from 'node:util';
import { AgentResponse } from '../core/agent-response.js';
import type { FrameworkCore } from '../core/framework-core.js';
import type { LlmConfig } from '../core/llm-config.js';
import { parseTaskInput } from '../core/task-input.js';
import type { AgentTool } from '../core/agent-tool.js';
import { createLanguageModel, parseLlmConfig } from '../llm/create-language-model.js';
import type { LanguageModel } from '../llm/language-model.js';
import type { ChatMessage, ThreadHistory } from '../llm/thread-history.js';
import { DEFAULT_MAX_TOOL_STEPS, streamStep, toolLoop } from '../llm/tool-loop.js';
import { askingSpan, recordApprovalOutcome, type AskingSpan } from '../core/telemetry/approval-events.js';
import { ToolLoopPause, ToolLoopPausedError, type PausedToolLoop, type ToolLoopResume } from '../llm/tool-pause.js';
import { ToolSet, type ParsedToolCall } from '../llm/tool-set.js';
import {
  classifyToolApprovalReply,
  DEFAULT_APPROVAL_TTL_MS,
  formatToolApproval,
  PENDING_TOOL_APPROVAL_KEY,
  PendingToolApprovalSchema,
  TOOL_APPROVAL,
  type PendingToolApproval,
} from './tool-approval.js';
import type { ToolGate } from './tool-gate.js';

export interface ToolAgentOptions {
  /** The tools the model may call. */
  tools: readonly AgentTool[];
  /** The model to ask, read at each request: its `llmConfig`, and optionally a provider to use instead of the one it names. */
  model: () => { llmConfig: LlmConfig; languageModel?: LanguageModel };
  /** Asks the Guardian before every gated call; without it every call runs. */
  gate?: ToolGate;
  /** System prompt of every model call. */
  system?: string;
  /** The user message sent for a request's text (a task's prompt template); default: the text itself. */
  prompt?: (text: string) => string;
  /** How the model's final reply is answered; default `AgentResponse.text(reply)`. */
  respond?: (reply: string) => AgentResponse;
  /** Rounds of tool calls per request before `tool_loop_limit`; default 8. */
  maxToolSteps?: number;
  /** How long a call waits for approval; default 10 minutes. */
  approvalTtlMs?: number;
  /** Conversation memory per context: tool calls and results are kept too. */
  history?: ThreadHistory;
  /** Name of the task; default `route_to_task`. */
  taskName?: string;
  /** Clock, for tests; default `Date.now`. */
  now?: () => number;
}

/** What a gated tool wants the task to show, in order. */
type ToolEvent = AgentResponse;

/** A queue of events filled by the tool loop while the task generator drains it. */
class EventQueue {
  readonly #items: ToolEvent[] = [];
  #wake: (() => void) | undefined;
  push(event: ToolEvent): void {
    this.#items.push(event);
    this.#wake?.();
  }
  take(): ToolEvent[] {
    return this.#items.splice(0);
  }
  /** Resolves at the next push, or at once when events are already waiting (pushed while the reader was busy). */
  wait(): Promise<void> {
    if (this.#items.length > 0) return Promise.resolve();
    return new Promise((resolve) => (this.#wake = resolve));
  }
}

interface ApprovalRequest {
  approvalId: string;
  tool: string;
  arguments: unknown;
  reasons: string[];
}

const TEXT = {
  again: 'A tool call is still waiting for your approval.',
  expired: 'That approval request expired, so the call did not run. Ask again if you still want it.',
  decided: 'That tool call is no longer waiting for a decision (it was decided, or replaced). Nothing else ran.',
  approvalsOff: 'Nothing ran: no approval can be given here',
  notTheCallShown: 'the call waiting is not the one you were asked about (its tool or arguments differ), so nothing ran',
  noConversation: "it needs a person's approval, and this request has no conversation to ask in (start a session: POST /session/start)",
};

function compact(value: unknown, max = 200): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * Registers a task that answers with the model and its tools, every call of a
 * gated tool asked of the Guardian first (`gate`):
 *
 * - allowed: the tool runs; a `status` "Calling tool <name>…" before, and one
 *   with `data: {tool, arguments, result}` after;
 * - denied: the tool does not run; the model gets the reasons as the tool's
 *   error, and a `status` says so;
 * - needs approval: the task stops with `input_required` (action type
 *   `tool_approval`, data `{approval_id, tool, arguments, reasons}`); the
 *   conversation's next reply decides it ("yes", "no", in English or Spanish,
 *   or `TOOL_APPROVE <id>` / `TOOL_REJECT <id>`): approved, the call is
 *   decided again with the policy in force (a deny, a rate limit included,
 *   then wins and the person is told why) and runs, exactly the tool and
 *   arguments shown, and the model goes on; refused, the model is told the person declined. An
 *   approval is claimed atomically in the session store (once, even when two
 *   replicas receive it at the same instant) and expires (`approvalTtlMs`).
 *
 * @example
 * registerToolAgentTask(core, { tools: [getQuote, placeTrade], model: () => ({ llmConfig }), gate });
 */
export function registerToolAgentTask(core: FrameworkCore, options: ToolAgentOptions): void {
  const tools = new Map(options.tools.map((tool) => [tool.name, tool]));
  new ToolSet(options.tools); // checks names and schemas now, not at the first request
  const now = options.now ?? Date.now;
  const ttl = options.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS;
  const taskName = options.taskName ?? 'route_to_task';

  core.task({ name: taskName, taskId: taskName }, async function* ({ query, contextId, oneShot, approvalsOff, agent, signal }) {
    const { text } = parseTaskInput(query);
    const conversation = contextId && !oneShot ? contextId : undefined;
    const update = (patch: Readonly<Record<string, unknown>>) => (conversation ? agent.updateSessionContext(conversation, patch) : Promise.resolve());

    /** Runs the model and its tools from `prompt` (or from a resumed pause) to a reply or a new pause. */
    async function* drive(prompt: string, resume?: ToolLoopResume): AsyncGenerator<AgentResponse> {
      const { llmConfig, languageModel } = options.model();
      const config = parseLlmConfig(llmConfig);
      const model = languageModel ?? createLanguageModel(config);
      const queue = new EventQueue();
      const gated = options.tools.map((tool) => gatedTool(tool, queue, conversation, signal));
      const toolSet = new ToolSet(gated);
      const history = resume || !options.history || !conversation ? [] : await options.history.load(conversation);
      const user: ChatMessage = { role: 'user', content: prompt };
      const messages: ChatMessage[] = [...(options.system ? [{ role: 'system' as const, content: options.system }] : []), ...history, user];
      const request = { model: config.model, messages, ...(config.temperature === undefined ? {} : { temperature: config.temperature }), signal };
      const loop = toolLoop(streamStep(model, true), request, { tools: toolSet, maxToolSteps: options.maxToolSteps ?? DEFAULT_MAX_TOOL_STEPS }, resume);

      let outcome: { reply: string; added: ChatMessage[] } | { paused: ToolLoopPausedError } | { failed: unknown } | undefined;
      const running = (async () => {
        try {
          let next = await loop.next();
          while (!next.done) next = await loop.next();
          outcome = next.value;
        } catch (error) {
          outcome = error instanceof ToolLoopPausedError ? { paused: error } : { failed: error };
        }
        queue.push(AgentResponse.status('')); // wakes the reader
      })();
      while (outcome === undefined) {
        await queue.wait();
        for (const event of queue.take()) if (!(event.type === 'status' && event.text === '')) yield event;
      }
      await running;
      for (const event of queue.take()) if (!(event.type === 'status' && event.text === '')) yield event;

      if ('failed' in outcome) throw outcome.failed;
      if ('paused' in outcome) {
        const request = outcome.paused.detail as ApprovalRequest;
        const created = now();
        const pending: PendingToolApproval = {
          approval_id: request.approvalId,
          tool: request.tool,
          arguments: request.arguments,
          reasons: request.reasons,
          created_at: new Date(created).toISOString(),
          expires_at: new Date(created + ttl).toISOString(),
          ...withAskingSpan(),
          prompt: resume ? pendingPrompt : prompt,
          state: outcome.paused.state as unknown as PendingToolApproval['state'],
        };
        await update({ [PENDING_TOOL_APPROVAL_KEY]: pending });
        yield AgentResponse.inputRequired(formatToolApproval(pending), {
          actionType: TOOL_APPROVAL,
          data: { approval_id: pending.approval_id, tool: pending.tool, arguments: pending.arguments, reasons: pending.reasons },
        });
        return;
      }
      if (options.history && conversation)
        await options.history.append(conversation, [{ role: 'user', content: resume ? pendingPrompt : prompt }, ...outcome.added]);
      yield options.respond ? options.respond(outcome.reply) : AgentResponse.text(outcome.reply);
    }

    /** A tool whose calls are asked of the gate first, and shown as they happen. */
    function gatedTool(tool: AgentTool, queue: EventQueue, contextId: string | undefined, abort: AbortSignal): AgentTool {
      return {
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        async run(args, context) {
          queue.push(AgentResponse.status(`Calling tool ${tool.name}(${compact(args)})…`, { data: { tool: tool.name, arguments: args } }));
          const decision = options.gate
            ? await options.gate.decide({ id: context.toolCallId, name: tool.name, arguments: args }, { contextId, signal: abort })
            : undefined;
          const cannotAsk =
            contextId === undefined ? TEXT.noConversation : approvalsOff === undefined ? undefined : `it needs a person's approval: ${approvalsOff}`;
          if (decision?.action === 'deny' || (decision?.action === 'require_approval' && cannotAsk !== undefined)) {
            const reasons = decision.action === 'deny' ? decision.reasons : [...decision.reasons, cannotAsk as string];
            queue.push(
              AgentResponse.status(`Tool ${tool.name} refused: ${reasons.join('; ')}`, { data: { tool: tool.name, arguments: args, refused: reasons } }),
            );
            throw new Error(`refused by policy: ${reasons.join('; ')}`);
          }
          if (decision?.action === 'require_approval') {
            throw new ToolLoopPause({ approvalId: crypto.randomUUID(), tool: tool.name, arguments: args, reasons: decision.reasons } satisfies ApprovalRequest);
          }
          const result = await tool.run(args, context);
          queue.push(AgentResponse.status(`${tool.name} → ${compact(result)}`, { data: { tool: tool.name, arguments: args, result } }));
          return result;
        },
      };
    }

    /**
     * Why an approved call must still not run, or undefined when it may: the
     * call waiting is not the one the person was shown (an approval binds the
     * tool and its exact arguments), or the policy in force now denies it
     * (decided again at the moment of approval: a policy tightened, or a rate
     * limit reached, while the call waited wins over the approval).
     */
    async function refusalAtApproval(pending: PendingToolApproval, call: ParsedToolCall['call']): Promise<string | undefined> {
      if (call.name !== pending.tool || !isDeepStrictEqual(call.arguments, pending.arguments)) return TEXT.notTheCallShown;
      if (!options.gate) return undefined;
      const decision = await options.gate.decide({ id: call.id, name: call.name, arguments: call.arguments }, { contextId: conversation, signal });
      return decision.action === 'deny' ? `the policy in force now refuses it: ${decision.reasons.join('; ')}` : undefined;
    }

    /** A wait's id, length and asking span, for the event of its end. */
    const waited = (pending: PendingToolApproval) => ({
      approvalId: pending.approval_id,
      waitMs: now() - Date.parse(pending.created_at),
      ...(pending.asked_by ? { asked: pending.asked_by } : {}),
    });

    let pendingPrompt = text;
    if (conversation) {
      const session = await agent.getSessionContext(conversation);
      const stored = session[PENDING_TOOL_APPROVAL_KEY];
      if (stored !== undefined) {
        const parsed = PendingToolApprovalSchema.safeParse(stored);
        const reply = classifyToolApprovalReply(text);
        if (!parsed.success) {
          await update({ [PENDING_TOOL_APPROVAL_KEY]: undefined });
        } else if (Date.parse(parsed.data.expires_at) < now()) {
          if (await agent.claimSessionContextValue(conversation, PENDING_TOOL_APPROVAL_KEY, stored)) {
            await update({ [PENDING_TOOL_APPROVAL_KEY]: undefined });
            recordApprovalOutcome({ ...waited(parsed.data), outcome: 'expired', decidedBy: 'expiry' });
          }
          if (reply !== null) {
            yield AgentResponse.text(TEXT.expired);
            return;
          }
        } else {
          const pending = parsed.data;
          if (reply === null || reply.decision === 'unclear') {
            yield AgentResponse.inputRequired(`${TEXT.again}\n${formatToolApproval(pending)}`, {
              actionType: TOOL_APPROVAL,
              data: { approval_id: pending.approval_id, tool: pending.tool, arguments: pending.arguments, reasons: pending.reasons },
            });
            return;
          }
          if (approvalsOff !== undefined && reply.decision === 'approve') {
            yield AgentResponse.text(`${TEXT.approvalsOff}: ${approvalsOff}`);
            return;
          }
          if (
            (reply.approvalId !== undefined && reply.approvalId !== pending.approval_id) ||
            !(await agent.claimSessionContextValue(conversation, PENDING_TOOL_APPROVAL_KEY, stored))
          ) {
            yield AgentResponse.text(TEXT.decided);
            return;
          }
          await update({ [PENDING_TOOL_APPROVAL_KEY]: undefined });
          pendingPrompt = pending.prompt;
          const state = pending.state as unknown as PausedToolLoop;
          const call = (state.pending[0] as ParsedToolCall).call;
          let content: string;
          recordApprovalOutcome({ ...waited(pending), outcome: reply.decision === 'approve' ? 'granted' : 'denied', decidedBy: 'person' });
          const refusal = reply.decision === 'approve' ? await refusalAtApproval(pending, call) : undefined;
          if (refusal !== undefined) {
            yield AgentResponse.status(`Approved, but ${call.name} did not run: ${refusal}`, {
              data: { tool: call.name, arguments: call.arguments, approved: true, refused: [refusal] },
            });
            content = JSON.stringify({ error: `the person approved, but the call did not run: ${refusal}` });
          } else if (reply.decision === 'approve') {
            yield AgentResponse.status(`Approved: calling tool ${call.name}(${compact(call.arguments)})…`, {
              data: { tool: call.name, arguments: call.arguments, approved: true },
            });
            const tool = tools.get(call.name);
            try {
              if (!tool) throw new Error(`unknown tool '${call.name}'`);
              const result = await tool.run(call.arguments, { toolCallId: call.id, signal });
              yield AgentResponse.status(`${call.name} → ${compact(result)}`, { data: { tool: call.name, arguments: call.arguments, result } });
              content = typeof result === 'string' ? result : (JSON.stringify(result) ?? 'null');
            } catch (error) {
              content = JSON.stringify({ error: `tool '${call.name}' failed: ${error instanceof Error ? error.message : String(error)}` });
            }
          } else {
            yield AgentResponse.status(`Declined: ${call.name} did not run`, { data: { tool: call.name, arguments: call.arguments, declined: true } });
            content = JSON.stringify({ error: 'the person declined this call, so it did not run' });
          }
          yield* drive(pending.prompt, { state, answer: { role: 'tool', content, tool_call_id: call.id, name: call.name } });
          return;
        }
      }
    }
    yield* drive(options.prompt ? options.prompt(text) : text);
  });
}

/** The `asked_by` of a wait that starts now: the active span, when tracing is on. */
function withAskingSpan(): { asked_by?: AskingSpan } {
  const asked = askingSpan();
  return asked ? { asked_by: asked } : {};
}
