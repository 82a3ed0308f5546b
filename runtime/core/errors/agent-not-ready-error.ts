import { FrameworkError } from '../framework-error.js';

/** The agent to be called does not answer at its address (not started yet, or down). */
export class AgentNotReadyError extends FrameworkError {
  readonly url: string;

  constructor(options: { url: string; detail?: string; cause?: unknown }) {
    super({
      code: 'agent_not_ready',
      message: `target agent not ready at ${options.url}${options.detail ? ` (${options.detail})` : ''}. Start it, or wait for its GET /health to answer.`,
      cause: options.cause,
    });
    this.url = options.url;
  }
}
