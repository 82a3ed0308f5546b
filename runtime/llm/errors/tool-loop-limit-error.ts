import { FrameworkError } from '../../core/framework-error.js';

/**
 * The model still asked for tools after `maxToolSteps` rounds of tool calls
 * (`tool_loop_limit`, 502 at the edge).
 */
export class ToolLoopLimitError extends FrameworkError {
  readonly maxToolSteps: number;
  /** Names of the tools the model asked for in its last reply. */
  readonly pendingTools: readonly string[];

  constructor(options: { maxToolSteps: number; pendingTools: readonly string[] }) {
    super({
      code: 'tool_loop_limit',
      message:
        `The model still asked for tools (${options.pendingTools.join(', ')}) after ${options.maxToolSteps} rounds of tool calls; ` +
        'raise invoke({ maxToolSteps }) or change the prompt or tools.',
    });
    this.maxToolSteps = options.maxToolSteps;
    this.pendingTools = options.pendingTools;
  }
}
