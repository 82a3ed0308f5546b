import { errorCodeInfo } from '../error-codes.js';
import { toPublicError } from '../public-error.js';
import { FrameworkError } from '../framework-error.js';

/** The JSON body of every error answer of the front door: `{ code, message }`. */
export interface ErrorBody {
  code: string;
  message: string;
}

/**
 * Turns any thrown value into an HTTP answer: our own errors keep code and
 * message with the status of the error table; anything else is a 500 with a
 * generic message (and is logged by the caller), never a stack trace.
 */
export function errorResponse(error: unknown, headers: Record<string, string> = {}): Response {
  const body: ErrorBody = toPublicError(error);
  const status = FrameworkError.isInstance(error) ? errorCodeInfo(error.code).httpStatus : 500;
  return Response.json(body, { status, headers });
}
