import type { ChatEvent } from './chat-event.js';
import type { ChatErrorDescription } from './describe-chat-error.js';

/** What one line (or block) of the chat transcript shows. */
export type TranscriptContent =
  /** Something the agent sent, or a notice about the session. */
  | { readonly kind: 'event'; readonly event: ChatEvent }
  /** A transport failure, as `describeChatError` put it. */
  | { readonly kind: 'failure'; readonly error: ChatErrorDescription }
  /** What the user sent: a message or a plan decision. */
  | { readonly kind: 'user'; readonly text: string }
  /** A short line from the REPL itself ("Cancelled.", an unknown command). */
  | { readonly kind: 'info'; readonly text: string }
  /** The /help text. */
  | { readonly kind: 'help' };

/** One entry of the transcript; ids are unique and increasing, and entries never change once added. */
export type TranscriptItem = { readonly id: number } & TranscriptContent;
