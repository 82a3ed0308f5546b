import { FrameworkError } from '../../core/framework-error.js';

/** The event stream of a request closed before the agent ended it (connection cut, agent stopped). */
export class StreamInterruptedError extends FrameworkError {
  readonly url: string;

  constructor(options: { url: string; cause?: unknown; /** Why, when known: "no data for 60 s". */ detail?: string }) {
    super({
      code: 'stream_interrupted',
      message: `The connection to ${options.url} closed before the agent finished${options.detail ? ` (${options.detail})` : ''}; the request may not have completed.`,
      cause: options.cause,
    });
    this.url = options.url;
  }
}
