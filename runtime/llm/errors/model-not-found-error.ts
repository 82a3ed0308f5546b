import { FrameworkError } from '../../core/framework-error.js';

/** The model runtime answered, but does not have the requested model. */
export class ModelNotFoundError extends FrameworkError {
  readonly model: string;
  readonly baseUrl: string;

  constructor(options: { model: string; baseUrl: string; cause?: unknown }) {
    super({
      code: 'model_not_found',
      message: `Model '${options.model}' was not found at ${options.baseUrl}. Pull it first: \`framework-cli model pull ${options.model}\` (or \`ollama pull ${options.model}\` against a real Ollama).`,
      cause: options.cause,
    });
    this.model = options.model;
    this.baseUrl = options.baseUrl;
  }
}
