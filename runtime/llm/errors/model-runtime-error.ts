import { FrameworkError } from '../../core/framework-error.js';

/**
 * The model runtime could not be reached (`model_runtime_unavailable`) or
 * answered with an error (`model_error`).
 */
export class ModelRuntimeError extends FrameworkError {
  readonly baseUrl: string;

  constructor(options: { code: 'model_runtime_unavailable' | 'model_error'; baseUrl: string; message: string; cause?: unknown }) {
    super({ code: options.code, message: options.message, cause: options.cause });
    this.baseUrl = options.baseUrl;
  }
}
