import type { Context } from 'hono';
import { z } from 'zod';
import { checkJsonDepth, readBodyText } from '../core/server/read-json-body.js';
import { ModelRequestError } from './model-request-error.js';
import { withoutNulls } from './ollama-wire.js';

/**
 * Reads a model-server request body as JSON whatever its Content-Type (Ollama's
 * own examples send none), with `null` properties dropped as "not set".
 * Rejects with a 400 `ModelRequestError` when it is empty, not JSON or too deep.
 */
export async function readModelRequest(c: Context, maxBytes: number): Promise<unknown> {
  const text = await readBodyText(c, maxBytes);
  if (text.trim() === '') throw new ModelRequestError({ status: 400, message: 'missing request body' });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ModelRequestError({ status: 400, message: `invalid JSON in request body: ${(error as Error).message}` });
  }
  try {
    checkJsonDepth(value);
  } catch (error) {
    throw new ModelRequestError({ status: 400, message: (error as Error).message });
  }
  return withoutNulls(value);
}

/** The body checked against `schema`; a mismatch is a 400 naming the fields. */
export function parseModelRequest<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const path = parsed.error.issues[0]?.path ?? [];
  throw new ModelRequestError({
    status: 400,
    message: z.prettifyError(parsed.error).replace(/\n/g, '; '),
    ...(path.length > 0 ? { param: path.map(String).join('.') } : {}),
  });
}
