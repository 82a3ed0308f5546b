import { FrameworkError } from '../../core/framework-error.js';

/**
 * An agent-to-agent call was refused: the policy said no, or (in `strict`
 * mode) the Guardian or policy engine could not be asked.
 */
export class PermissionError extends FrameworkError {
  /** Why the call was refused, as the policy or validator put it. */
  readonly reason: string;
  /** Name of the calling agent. */
  readonly source: string;
  /** Name of the agent that was to be called. */
  readonly target: string;

  constructor(options: { reason: string; source: string; target: string; cause?: unknown }) {
    super({
      code: 'permission_denied',
      message: `Agent "${options.source}" may not call agent "${options.target}": ${options.reason}`,
      cause: options.cause,
    });
    this.reason = options.reason;
    this.source = options.source;
    this.target = options.target;
  }
}
