import { FrameworkError } from '../framework-error.js';

/**
 * An agent's front door answered with an HTTP error. `code` is the agent's
 * own error code when its body said one (`{code, message}`), else `http_<status>`.
 */
export class AgentHttpError extends FrameworkError {
  readonly url: string;
  readonly status: number;

  constructor(options: { url: string; status: number; code?: string; detail?: string }) {
    const code = options.code ?? `http_${options.status}`;
    super({
      code,
      message: `The agent at ${options.url} answered HTTP ${options.status}${options.detail ? `: ${options.detail}` : ''}`,
    });
    this.url = options.url;
    this.status = options.status;
  }
}
