import { FrameworkError } from '../framework-error.js';
import { listNames } from './unknown-task-error.js';

/** `executeStep` was asked for a step that is not registered. */
export class UnknownStepError extends FrameworkError {
  readonly step: string;
  readonly registered: readonly string[];

  constructor(options: { step: string; registered: readonly string[] }) {
    super({
      code: 'unknown_step',
      message: `Unknown step '${options.step}'. Registered steps: ${listNames(options.registered)}.`,
    });
    this.step = options.step;
    this.registered = options.registered;
  }
}
