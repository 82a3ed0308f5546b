import { FrameworkError } from '../core/framework-error.js';

/**
 * A model server (ours or Ollama) answered a management or chat request
 * with an error: its HTTP status and its `error` text.
 */
export class ModelServerError extends FrameworkError {
  readonly status: number;

  constructor(options: { status: number; message: string }) {
    super({
      code: options.status === 404 ? 'model_not_found' : options.status >= 400 && options.status < 500 ? 'invalid_request' : 'model_error',
      message: options.message,
    });
    this.status = options.status;
  }
}
