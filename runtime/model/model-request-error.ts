import { FrameworkError } from '../core/framework-error.js';

/**
 * A request the model server cannot serve, with the HTTP status Ollama uses
 * for it (400 malformed or too long for the context, 404 unknown model, 501
 * not implemented, 502 the model's output broke the request's schema, 503 queue full). Answered as `{"error": message}` on
 * Ollama's routes, as OpenAI's error object on `/v1`, where `param` names
 * the request field at fault.
 */
export class ModelRequestError extends FrameworkError {
  readonly status: 400 | 404 | 501 | 502 | 503;
  readonly param: string | undefined;

  constructor(options: { status: 400 | 404 | 501 | 502 | 503; message: string; param?: string; cause?: unknown }) {
    super({
      code: options.status === 404 ? 'model_not_found' : options.status === 503 ? 'model_runtime_unavailable' : 'invalid_request',
      message: options.message,
      cause: options.cause,
    });
    this.status = options.status;
    this.param = options.param;
  }
}
