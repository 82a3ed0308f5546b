import type { ChatEvent } from './chat-event.js';
import type { ChatSession, PlanDecision } from './chat-session.js';

/** What a non-interactive `chat` run sends: one message, or a plan decision on the saved session. */
export type ChatScriptAction = { kind: 'message'; text: string } | PlanDecision;

export interface ChatScriptOutcome {
  /** Events received (session notices included). */
  events: number;
  /** The agent's error event, when the run ended with one; `session_expired` when the message could not be sent on a renewed session. */
  error?: { code: string; message: string };
  /** Whether the run ended waiting for an answer (a plan to approve, a question). */
  awaitingInput: boolean;
}

/**
 * Runs one non-interactive exchange: opens the session (saved or new), sends
 * the message or the plan decision, hands every event to `onEvent` as it
 * arrives, and says how it ended. Transport failures are thrown (typed).
 *
 * @example
 * await runChatScript({ session, action: { kind: 'approve' }, onEvent: (e) => print(e) });
 */
export async function runChatScript(options: {
  session: ChatSession;
  action: ChatScriptAction;
  forceNew?: boolean;
  signal?: AbortSignal;
  onEvent: (event: ChatEvent) => void;
}): Promise<ChatScriptOutcome> {
  const { session, action, signal } = options;
  let events = 0;
  let error: ChatScriptOutcome['error'];
  let awaitingInput = false;
  const emit = (event: ChatEvent): void => {
    events += 1;
    if (event.type === 'error') error = { code: event.code, message: event.message };
    // The session expired and the reply or decision was not sent: the run did not do what it was asked.
    if (event.type === 'session' && event.unsent) error = { code: 'session_expired', message: event.text };
    if (event.type !== 'session') awaitingInput = event.type === 'input_required';
    options.onEvent(event);
  };
  const opened = await session.open({ forceNew: options.forceNew ?? false, ...(signal ? { signal } : {}) });
  // A resumed session was only read from the token file: say so once the agent has answered, so an
  // unreachable agent is not first reported as a session resumed with it.
  let resumed: ChatEvent | undefined = opened.status === 'resumed' ? opened : undefined;
  if (!resumed) emit(opened);
  const stream = action.kind === 'message' ? session.send(action.text, signal ? { signal } : {}) : session.decide(action, signal ? { signal } : {});
  for await (const event of stream) {
    if (resumed) emit(resumed);
    resumed = undefined;
    emit(event);
  }
  return { events, awaitingInput, ...(error ? { error } : {}) };
}
