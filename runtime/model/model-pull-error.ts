import { FrameworkError } from '../core/framework-error.js';

/** A model could not be fetched or failed its checksum. */
export class ModelPullError extends FrameworkError {
  readonly model: string;

  constructor(options: { model: string; message: string; cause?: unknown }) {
    super({ code: 'model_error', message: options.message, cause: options.cause });
    this.model = options.model;
  }
}
