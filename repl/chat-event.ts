import { TOOL_APPROVAL } from '../runtime/tools/tool-approval.js';
import { z } from 'zod';
import { PLAN_CONFIRMATION, type AgentResponse } from '../runtime/core/agent-response.js';

/** A line about the session itself, not from the agent: started, resumed, renewed after expiry, or none (agent without sessions). */
export interface SessionNotice {
  readonly type: 'session';
  readonly status: 'started' | 'resumed' | 'renewed' | 'anonymous';
  readonly text: string;
  readonly contextId?: string;
  /** Set on a renewal after which the message was not sent again (it answered what the old session had asked). */
  readonly unsent?: boolean;
}

/** What the chat shows: the agent's responses, plus notices about the session. */
export type ChatEvent = AgentResponse | SessionNotice;

/** The structured plan an `input_required` of action type `plan_confirmation` carries (json event format). */
export const PlanCardSchema = z.object({
  plan_id: z.string().optional(),
  /** Set when the plan is an edit of another one (which can no longer be approved). */
  previous_plan_id: z.string().optional(),
  plan: z.object({
    objective: z.string(),
    methodology: z.string(),
    methodology_rationale: z.string().optional(),
    tasks: z.array(
      z.object({ task_id: z.string().optional(), description: z.string(), change: z.enum(['added', 'changed', 'moved']).optional().catch(undefined) }),
    ),
    removed: z.array(z.string()).optional().catch(undefined),
    objective_changed: z.boolean().optional().catch(undefined),
  }),
});
export type PlanCard = z.infer<typeof PlanCardSchema>;

/** An `input_required` that is a plan waiting for approve / reject / modify. */
export type PlanConfirmation = Extract<AgentResponse, { type: 'input_required' }> & { readonly actionType: typeof PLAN_CONFIRMATION };

/**
 * True for a plan waiting for approve / reject / modify. The guard names the
 * action type, so where it is false an `input_required` stays one (another question).
 */
export function isPlanConfirmation(event: ChatEvent): event is PlanConfirmation {
  return event.type === 'input_required' && event.actionType === PLAN_CONFIRMATION;
}

/** An `input_required` that asks a person to approve one tool call. */
export type ToolApprovalRequest = Extract<AgentResponse, { type: 'input_required' }> & { readonly actionType: typeof TOOL_APPROVAL };

export function isToolApproval(event: ChatEvent): event is ToolApprovalRequest {
  return event.type === 'input_required' && event.actionType === TOOL_APPROVAL;
}

/** A question decided with keys: a plan (approve, reject, modify) or a tool call (approve, reject). */
export function isDecisionCard(event: ChatEvent): event is PlanConfirmation | ToolApprovalRequest {
  return isPlanConfirmation(event) || isToolApproval(event);
}

export const ToolApprovalCardSchema = z.object({
  approval_id: z.string(),
  tool: z.string(),
  arguments: z.unknown(),
  reasons: z.array(z.string()).catch([]),
});
export type ToolApprovalCard = z.infer<typeof ToolApprovalCardSchema>;

/** The structured tool call of a tool approval, or undefined when the agent sent only text. */
export function toolApprovalOf(event: ChatEvent): ToolApprovalCard | undefined {
  if (!isToolApproval(event) || event.data === undefined) return undefined;
  const parsed = ToolApprovalCardSchema.safeParse(event.data);
  return parsed.success ? parsed.data : undefined;
}

/** The structured plan of a plan confirmation, or undefined when the agent sent only text. */
export function planCardOf(event: ChatEvent): PlanCard | undefined {
  if (!isPlanConfirmation(event) || event.data === undefined) return undefined;
  const parsed = PlanCardSchema.safeParse(event.data);
  return parsed.success ? parsed.data : undefined;
}

/** The id of the plan a plan confirmation proposes, read on its own (a card the REPL cannot draw may still name its plan). */
export function planIdOf(event: ChatEvent): string | undefined {
  if (!isPlanConfirmation(event)) return undefined;
  const id = event.data?.plan_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}
