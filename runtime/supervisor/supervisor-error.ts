import type { ErrorCode } from '../core/error-codes.js';
import { FrameworkError } from '../core/framework-error.js';

/**
 * A stack could not be started or kept running: a service crashed too often,
 * never got healthy, or the stack was stopped while starting. `service` names
 * the culprit and `lastLines` holds the end of its log.
 *
 * @example
 * try {
 *   await supervisor.start();
 * } catch (error) {
 *   if (SupervisorError.isInstance(error)) console.error(error.message, error.lastLines.join('\n'));
 * }
 */
export class SupervisorError extends FrameworkError {
  readonly service: string | undefined;
  readonly lastLines: readonly string[];

  constructor(options: {
    code: 'service_gave_up' | 'supervisor_stopped' | 'supervisor_failed';
    message: string;
    service?: string;
    lastLines?: readonly string[];
    cause?: unknown;
  }) {
    super({ code: options.code, message: options.message, cause: options.cause });
    this.service = options.service;
    this.lastLines = options.lastLines ?? [];
  }

  static override isInstance(value: unknown): value is SupervisorError {
    return FrameworkError.isInstance(value) && 'lastLines' in value;
  }

  override toJSON(): { code: ErrorCode; message: string; service?: string; lastLines: string[] } {
    return { code: this.code, message: this.message, ...(this.service ? { service: this.service } : {}), lastLines: [...this.lastLines] };
  }
}
