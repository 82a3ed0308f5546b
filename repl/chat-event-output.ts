import { assertNever } from '../runtime/core/assert-never.js';
import { responseToJson } from '../runtime/core/task-events.js';
import { terminalText } from '../runtime/core/terminal-text.js';
import { toolApprovalOf, type ChatEvent } from './chat-event.js';
import { canonicalJson } from './tool-call-text.js';

/** One NDJSON line of `chat --json`: `{"event": <kind>, "data": {...}}`, the front door's json event format plus `session` notices. */
export interface ChatEventDocument {
  event: ChatEvent['type'];
  data: Record<string, unknown>;
}

/**
 * The `--json` form of a chat event.
 *
 * @example
 * chatEventToJson({ type: 'status', text: 'Planning...' }); // { event: 'status', data: { text: 'Planning...' } }
 */
export function chatEventToJson(event: ChatEvent): ChatEventDocument {
  if (event.type === 'session') {
    return {
      event: 'session',
      data: { status: event.status, text: event.text, ...(event.contextId ? { context_id: event.contextId } : {}), ...(event.unsent ? { unsent: true } : {}) },
    };
  }
  return { event: event.type, data: responseToJson(event) };
}

/**
 * A chat event as plain lines, for `chat --message` without `--json` and
 * without a terminal UI. Everything the agent wrote goes through
 * `terminalText`: what a terminal would interpret or hide is shown as a
 * visible escape (`highlight` may style it); a status stays on one line; a
 * tool call waiting for approval is shown as the call exactly (canonical JSON).
 *
 * @example
 * chatEventToText({ type: 'status', text: 'Planning\u001b]0;pwned\u0007' }); // '… Planning\\x1b]0;pwned\\x07'
 */
export function chatEventToText(event: ChatEvent, options: { highlight?: (escape: string) => string } = {}): string {
  const show = (text: string, singleLine = false) => terminalText(text, { singleLine, ...options });
  switch (event.type) {
    case 'session':
      return `(${show(event.text, true)})`;
    case 'status':
      return `… ${show(event.text, true)}`;
    case 'text':
      return show(event.text);
    case 'input_required': {
      const card = toolApprovalOf(event);
      if (!card) return show(event.text);
      const lines = [
        `Approval needed: ${show(card.tool, true)}`,
        `Arguments: ${show(canonicalJson(card.arguments, 2))}`,
        ...(card.reasons.length ? [`Why: ${show(card.reasons.join('; '), true)}`] : []),
        `Approve with: framework-cli chat <agent> --approve; refuse with --reject.`,
      ];
      return lines.join('\n');
    }
    case 'result':
      return show(JSON.stringify(event.data, null, 2));
    case 'error':
      return `Error (${show(event.code, true)}): ${show(event.message)}`;
    default:
      return assertNever(event);
  }
}
