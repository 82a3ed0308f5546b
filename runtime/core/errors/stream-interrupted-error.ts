import { FrameworkError } from '../framework-error.js';

/** The event stream of a request closed before the agent ended it (connection cut, agent stopped). */
export class StreamInterruptedError extends FrameworkError {
  readonly url: string;

  constructor(options: { url: string; cause?: unknown }) {
    super({
      code: 'stream_interrupted',
      message: `The connection to ${options.url} closed before the agent finished; the request may not have completed.`,
      cause: options.cause,
    });
    this.url = options.url;
  }
}
