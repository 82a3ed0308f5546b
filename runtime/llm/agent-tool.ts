export type { AgentTool, AgentToolContext } from '../core/agent-tool.js';

/**
 * One tool call as `invoke` reports it to `onToolCall`, after it ran: with
 * `result` when the tool returned, with `error` when the call was refused
 * (unknown tool, invalid arguments) or the tool threw. The model gets the
 * same error text as `{"error": ...}`.
 */
export type ToolCallEvent =
  | { id: string; name: string; arguments: unknown; result: unknown; error?: undefined }
  | { id: string; name: string; arguments: unknown; error: string; result?: undefined };
