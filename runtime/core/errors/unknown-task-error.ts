import { FrameworkError } from '../framework-error.js';

/** `executeTask` was asked for a task that is not registered. */
export class UnknownTaskError extends FrameworkError {
  readonly task: string;
  readonly registered: readonly string[];

  constructor(options: { task: string; registered: readonly string[] }) {
    super({
      code: 'unknown_task',
      message: `Unknown task '${options.task}'. Registered tasks: ${listNames(options.registered)}.`,
    });
    this.task = options.task;
    this.registered = options.registered;
  }
}

export function listNames(names: readonly string[]): string {
  return names.length > 0 ? names.join(', ') : '(none)';
}
