import { FrameworkError } from '../framework-error.js';

/**
 * The agent to be called does not answer at its address (not started yet, or
 * down), or (`lostAgent` set) the connection to it broke in the middle of a call.
 */
export class AgentNotReadyError extends FrameworkError {
  readonly url: string;
  /** True when nothing reached the agent (the connection was refused or never made): a retry cannot run anything twice. */
  readonly unreached: boolean;

  constructor(options: { url: string; detail?: string; cause?: unknown; lostAgent?: string; unreached?: boolean }) {
    const detail = options.detail ? ` (${options.detail})` : '';
    super({
      code: 'agent_not_ready',
      message:
        options.lostAgent === undefined
          ? `target agent not ready at ${options.url}${detail}. Start it, or wait for its GET /health to answer.`
          : `connection to ${options.lostAgent} lost mid-call at ${options.url}${detail}: the agent stopped or restarted. Check its GET /health, then retry.`,
      cause: options.cause,
    });
    this.url = options.url;
    this.unreached = options.unreached ?? false;
  }
}
