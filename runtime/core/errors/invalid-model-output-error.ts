import { FrameworkError } from '../framework-error.js';

/** Most characters of a model reply an error message quotes. */
const EXCERPT_CHARS = 120;

/**
 * A short, single-line preview of model text for error messages: whitespace
 * collapsed, cut at 120 characters with an ellipsis.
 *
 * @example
 * excerptOf('Sure!\n\nHere is   the plan') // 'Sure! Here is the plan'
 */
export function excerptOf(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= EXCERPT_CHARS ? line : `${line.slice(0, EXCERPT_CHARS)}…`;
}

/**
 * The model answered, but not with what was asked for: no JSON object in the
 * reply, or an object that does not match the expected shape. Maps to 502
 * (`invalid_model_output`) at the edge.
 *
 * @example
 * throw new InvalidModelOutputError({ message: 'No JSON object in the model reply', output: reply });
 */
export class InvalidModelOutputError extends FrameworkError {
  /** What is wrong, without the excerpt (the message is this plus the excerpt). */
  readonly reason: string;
  /** The start of the offending reply, one line, at most 120 characters. */
  readonly excerpt: string;

  constructor(options: { message: string; output: string; cause?: unknown }) {
    const excerpt = excerptOf(options.output);
    super({
      code: 'invalid_model_output',
      message: `${options.message} (reply began: ${JSON.stringify(excerpt)})`,
      cause: options.cause,
    });
    this.reason = options.message;
    this.excerpt = excerpt;
  }
}
