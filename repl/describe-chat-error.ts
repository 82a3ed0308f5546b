import { AgentHttpError } from '../runtime/http/errors/agent-http-error.js';
import { AgentNotReadyError } from '../runtime/core/errors/agent-not-ready-error.js';
import { SessionInvalidError } from '../runtime/sessions/errors/session-invalid-error.js';
import { StreamInterruptedError } from '../runtime/http/errors/stream-interrupted-error.js';
import { FrameworkError } from '../runtime/core/framework-error.js';

/** A failure as the chat shows it: what happened and what to do. */
export interface ChatErrorDescription {
  code: string;
  message: string;
  /** The fix, for example "is the agent running? try framework-cli up". */
  hint: string;
}

/**
 * Turns a transport failure of the chat into a message a person can act on.
 * The REPL shows it and stays usable; `chat --json` prints it as the error document.
 *
 * @example
 * describeChatError(error, 'http://127.0.0.1:8100').hint; // 'Is the agent running? Try framework-cli up ...'
 */
export function describeChatError(error: unknown, agentUrl: string): ChatErrorDescription {
  if (FrameworkError.isInstance(error)) {
    if (error instanceof AgentNotReadyError) {
      return {
        code: error.code,
        message: `Cannot reach the agent at ${agentUrl}${detailOf(error.message)}.`,
        hint: 'Is the agent running? Try framework-cli up (or framework-cli up --example tutorial), then framework-cli status.',
      };
    }
    if (error instanceof StreamInterruptedError) {
      return {
        code: error.code,
        message: error.message,
        hint: 'The agent may have stopped: check framework-cli status and framework-cli logs, then send the message again.',
      };
    }
    if (error instanceof SessionInvalidError) {
      return { code: error.code, message: error.message, hint: 'Start a new session with /new (or --new-session).' };
    }
    if (error instanceof AgentHttpError) {
      const hint =
        error.status >= 500
          ? 'The agent failed: look at its log (framework-cli logs <agent>) and try again.'
          : error.status === 404 || error.status === 405
            ? `Is ${agentUrl} an agent's front door? It needs POST /stream.`
            : 'The agent refused the request; check the message and try again.';
      return { code: error.code, message: error.message, hint };
    }
    return { code: error.code, message: error.message, hint: 'Try again, or start a new session with /new.' };
  }
  if (isFileError(error)) {
    return {
      code: 'session_store_failed',
      message: `Could not keep the session token in ${error.path}: ${error.message}`,
      hint: 'Make the configuration folder writable, or set FRAMEWORK_CLI_CONFIG_DIR to a folder you own.',
    };
  }
  if (error instanceof Error && error.name === 'AbortError') {
    return { code: 'aborted', message: 'Cancelled.', hint: '' };
  }
  return {
    code: 'chat_failed',
    message: error instanceof Error ? error.message : String(error),
    hint: 'Try again; if it keeps failing, run framework-cli doctor.',
  };
}

/** "(connection refused)" out of the AgentNotReadyError message, as " (connection refused)". */
function detailOf(message: string): string {
  const match = /\(([^)]*)\)/.exec(message);
  return match ? ` (${match[1]})` : '';
}

/** A file-system failure (EACCES, ENOTDIR, ENOSPC, ...), from saving the session token. */
function isFileError(error: unknown): error is Error & { code: string; path: string } {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string' && typeof (error as { path?: unknown }).path === 'string';
}
