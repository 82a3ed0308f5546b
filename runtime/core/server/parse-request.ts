import type { z } from 'zod';
import { BadRequestError } from '../errors/bad-request-error.js';

/** The value at `path` inside `raw`, or undefined when any step is missing. */
function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let value = raw;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * Validates a request body (or query) against `schema`; a mismatch is a 400
 * `invalid_request` whose message names every bad field by its path.
 *
 * @example
 * const input = parseRequest({ schema: A2AValidationInputSchema, raw: await readJsonBody(c, { maxBytes }) });
 * // a bad body throws BadRequestError:
 * // "Invalid request body: source_agent.name: is required; communication.message_length: must be a number."
 */
export function parseRequest<S extends z.ZodType>(options: {
  schema: S;
  raw: unknown;
  /** What is being read, for the message; default `request body`. */
  what?: string;
}): z.output<S> {
  const what = options.what ?? 'request body';
  const parsed = options.schema.safeParse(options.raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.map(String).join('.') : what;
    const missing = issue.path.length > 0 && issue.code === 'invalid_type' && valueAt(options.raw, issue.path) === undefined;
    return `${where}: ${missing ? 'is required' : issue.message}`;
  });
  throw new BadRequestError({ code: 'invalid_request', message: `Invalid ${what}: ${problems.join('; ')}.` });
}
