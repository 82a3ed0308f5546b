import { BadRequestError } from '../core/errors/bad-request-error.js';

/**
 * Reads a request body as JSON, enforcing the content type and a size limit
 * (also for chunked bodies with no Content-Length).
 */
export async function readJsonBody(request: Request, options: { maxBytes: number }): Promise<unknown> {
  const contentType = request.headers.get('content-type');
  const mediaType = contentType?.split(';', 1)[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json' && !mediaType?.endsWith('+json')) {
    throw new BadRequestError({
      code: 'unsupported_media_type',
      message: `Send the body as JSON with "Content-Type: application/json" (got ${contentType ? `"${contentType}"` : 'no Content-Type'}).`,
    });
  }
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > options.maxBytes) throw tooLarge(options.maxBytes);

  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > options.maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(options.maxBytes);
      }
      chunks.push(value);
    }
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw new BadRequestError({ code: 'invalid_json', message: 'The request body is empty; send a JSON object.' });
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BadRequestError({
      code: 'invalid_json',
      message: `The request body is not valid JSON: ${(error as Error).message}`,
    });
  }
}

function tooLarge(maxBytes: number): BadRequestError {
  return new BadRequestError({
    code: 'payload_too_large',
    message: `The request body is larger than the limit of ${maxBytes} bytes.`,
  });
}
