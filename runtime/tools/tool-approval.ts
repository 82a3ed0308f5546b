import { z } from 'zod';
import { readDecision, replyTokens } from '../planning/reply-grammar.js';

/** The action type of an `input_required` that asks a person to approve one tool call. */
export const TOOL_APPROVAL = 'tool_approval';
/** Session-context key of the tool call waiting for approval. */
export const PENDING_TOOL_APPROVAL_KEY = 'pending_tool_approval';
/** Replies a client (the REPL's keys, `chat --approve`) sends instead of words. */
export const TOOL_APPROVE = 'TOOL_APPROVE';
export const TOOL_REJECT = 'TOOL_REJECT';
/** How long an approval stays answerable by default: 10 minutes. */
export const DEFAULT_APPROVAL_TTL_MS = 10 * 60 * 1000;

const ChatMessageSchema = z.looseObject({ role: z.enum(['system', 'user', 'assistant', 'tool']), content: z.string() });

/** A tool call waiting for a person, as kept in the session context. */
export const PendingToolApprovalSchema = z.object({
  approval_id: z.string().min(1),
  tool: z.string(),
  arguments: z.unknown(),
  reasons: z.array(z.string()),
  created_at: z.string(),
  expires_at: z.string(),
  /** The span that asked (trace and span id), which the resuming request links to; absent while tracing is off. */
  asked_by: z.object({ trace_id: z.string().regex(/^[0-9a-f]{32}$/), span_id: z.string().regex(/^[0-9a-f]{16}$/) }).optional(),
  /** The request that led to it (for the thread history). */
  prompt: z.string(),
  /** The paused tool loop (see `PausedToolLoop`). */
  state: z.object({
    messages: z.array(ChatMessageSchema),
    added: z.array(ChatMessageSchema),
    pending: z.array(z.looseObject({ call: z.looseObject({ id: z.string(), name: z.string() }) })).min(1),
  }),
});
export type PendingToolApproval = z.infer<typeof PendingToolApprovalSchema>;

/** What a reply to a pending tool approval says. */
export type ToolApprovalReply = { decision: 'approve' | 'reject' | 'unclear'; approvalId?: string } | null;

const SENTINEL = new RegExp(`^(${TOOL_APPROVE}|${TOOL_REJECT})(?:\\s+(\\S+))?$`);

/**
 * Reads a reply to a tool call waiting for approval: the sentinels
 * `TOOL_APPROVE <id>` / `TOOL_REJECT <id>`, or words, with the plan
 * confirmation grammar (English and Spanish: "yes, go ahead", "dale",
 * "no, don't", "cancélalo"). A wish to change the call, or a hedge, is
 * `unclear` (the person is asked again: a tool call is approved as asked or
 * not at all); anything else is `null`. Pure; never throws.
 *
 * @example
 * classifyToolApprovalReply('TOOL_APPROVE a1'); // { decision: 'approve', approvalId: 'a1' }
 * classifyToolApprovalReply('sí, adelante');    // { decision: 'approve' }
 * classifyToolApprovalReply('not yet');         // { decision: 'unclear' }
 */
export function classifyToolApprovalReply(text: string): ToolApprovalReply {
  if (typeof text !== 'string') return null;
  const sentinel = SENTINEL.exec(text.trim());
  if (sentinel) {
    const decision = sentinel[1] === TOOL_APPROVE ? 'approve' : 'reject';
    return sentinel[2] === undefined ? { decision } : { decision, approvalId: sentinel[2] };
  }
  const decision = readDecision(replyTokens(text));
  if (decision === null) return null;
  return { decision: decision === 'approve' ? 'approve' : decision === 'reject' ? 'reject' : 'unclear' };
}

/** The text of a tool-approval question: the tool, its arguments, why, and how to answer. */
export function formatToolApproval(approval: Pick<PendingToolApproval, 'tool' | 'arguments' | 'reasons'>): string {
  return [
    `Approval needed: the agent wants to call ${approval.tool}`,
    `Arguments: ${JSON.stringify(approval.arguments)}`,
    ...(approval.reasons.length ? [`Why: ${approval.reasons.join('; ')}`] : []),
    '',
    'Reply "yes" to let it run, or "no" to refuse it.',
  ].join('\n');
}
