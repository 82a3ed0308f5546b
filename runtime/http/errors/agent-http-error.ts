import { isErrorCode } from '../../core/error-codes.js';
import { FrameworkError } from '../../core/framework-error.js';

/**
 * An agent's front door answered with an HTTP error. `agentCode` is the code
 * its body said (`{code, message}`), else `http_<status>`; `code` is the same
 * when it is one of ours, else `agent_http_error`.
 */
export class AgentHttpError extends FrameworkError {
  readonly url: string;
  readonly status: number;
  readonly agentCode: string;

  constructor(options: { url: string; status: number; code?: string; detail?: string }) {
    const agentCode = options.code ?? `http_${options.status}`;
    super({
      code: isErrorCode(agentCode) ? agentCode : 'agent_http_error',
      message: `The agent at ${options.url} answered HTTP ${options.status}${options.detail ? `: ${options.detail}` : ''}`,
    });
    this.url = options.url;
    this.status = options.status;
    this.agentCode = agentCode;
  }
}
