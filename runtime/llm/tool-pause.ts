import type { ChatMessage, ChatToolCall } from './thread-history.js';

/**
 * Thrown by a tool's `run` to stop the tool loop before the call runs (for
 * example until a person approves it). Unlike any other throw, it is not
 * sent to the model as a tool error: the loop stops and rejects with
 * `ToolLoopPausedError`, from which it can be resumed.
 */
export class ToolLoopPause extends Error {
  /** Whatever the tool wants the caller to see (for example an approval request). */
  readonly detail: unknown;

  constructor(detail: unknown, message = 'the tool loop is paused before this call') {
    super(message);
    this.name = 'ToolLoopPause';
    this.detail = detail;
  }
}

/** Everything needed to resume a paused tool loop: plain JSON, so it can be kept in a session. */
export interface PausedToolLoop {
  /** The conversation sent to the model so far, including the assistant's tool calls and the results already in. */
  messages: ChatMessage[];
  /** What this loop added to the conversation so far (for the thread history). */
  added: ChatMessage[];
  /** The calls of the current round not run yet; the first is the one that paused. */
  pending: { call: ChatToolCall; parseError?: string }[];
}

/** The tool loop stopped at a `ToolLoopPause`; `state` resumes it (`ToolLoopResume`). */
export class ToolLoopPausedError extends Error {
  readonly detail: unknown;
  readonly state: PausedToolLoop;

  constructor(pause: ToolLoopPause, state: PausedToolLoop) {
    super(pause.message);
    this.name = 'ToolLoopPausedError';
    this.detail = pause.detail;
    this.state = state;
  }
}

/** How to go on from a pause: the state, and the tool message that answers the call that paused. */
export interface ToolLoopResume {
  state: PausedToolLoop;
  /** The result of the paused call (or why it did not run), as the `tool` message the model gets. */
  answer: ChatMessage;
}
