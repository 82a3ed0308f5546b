import { FrameworkError } from '../../core/framework-error.js';

/** An agent card file is missing, is not JSON, or lacks a field; names the file and the field. */
export class AgentCardError extends FrameworkError {
  readonly file: string;
  readonly field: string | undefined;

  constructor(options: { file: string; field?: string; message: string; cause?: unknown }) {
    super({ code: 'invalid_agent_card', message: options.message, cause: options.cause });
    this.file = options.file;
    this.field = options.field;
  }
}
