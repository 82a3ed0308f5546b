/**
 * Request and response encodings of the policy server, as OPA's: request
 * bodies may be gzip-compressed (`Content-Encoding: gzip`, decompressed
 * within the body limit, so a gzip bomb is refused with OPA's 400 after at
 * most that many bytes) and YAML (`Content-Type: application/x-yaml`); answers
 * of at least {@link GZIP_MIN_LENGTH} bytes are gzip-compressed for a client
 * that accepts it (OPA's `server.encoding.gzip.min_length`). Both directions
 * run on zlib's thread pool, never holding the event loop.
 */
import type { Context } from 'hono';
import { BadRequestError } from '../../core/errors/bad-request-error.js';
import { readBodyBytes } from '../../core/server/read-json-body.js';
import { gunzipWithin, gzipText, InflateLimitError } from './gunzip-within.js';

/** OPA's default `server.encoding.gzip.min_length`: shorter answers are sent as they are. */
export const GZIP_MIN_LENGTH = 1024;

/** OPA's default `server.encoding.gzip.compression_level`. */
const GZIP_LEVEL = 9;

/**
 * OPA's answer to a gzip body that inflates past its limit (`util.ReadMaybeCompressedBody`'s error under the
 * handler's prefix): a 400, not a 413, whatever the limit.
 */
function inflatesTooLarge(): BadRequestError {
  return new BadRequestError({ code: 'invalid_request', message: 'could not decompress the body: gzip payload too large' });
}

/** True when the request's body needs decoding here (the direct route leaves such requests to the app). */
export function needsDecoding(contentEncoding: string | undefined, contentType: string | undefined): boolean {
  return (contentEncoding !== undefined && contentEncoding.trim() !== '' && contentEncoding.trim() !== 'identity') || isYaml(contentType);
}

/** OPA reads a body as YAML when its Content-Type mentions yaml (`application/x-yaml`, `application/yaml`). */
export function isYaml(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.toLowerCase().includes('yaml');
}

/**
 * The body of a gzip-compressed request as text: the compressed bytes are
 * read within `maxBytes`, and so is their decompressed form (OPA's 400
 * `gzip payload too large` past it, without inflating more than `maxBytes` bytes). Another encoding is a 400.
 */
export async function readEncodedBody(c: Context, maxBytes: number): Promise<string> {
  const encoding = (c.req.header('content-encoding') ?? '').trim().toLowerCase();
  if (encoding !== 'gzip' && encoding !== 'x-gzip') {
    throw new BadRequestError({
      code: 'invalid_request',
      message: `unsupported Content-Encoding ${JSON.stringify(encoding)}: send the body as it is or gzip-compressed`,
    });
  }
  const compressed = await readBodyBytes(c, maxBytes);
  try {
    return (await gunzipWithin(compressed, maxBytes)).toString('utf8');
  } catch (error) {
    if (error instanceof InflateLimitError) throw inflatesTooLarge();
    throw new BadRequestError({ code: 'invalid_request', message: `the gzip-compressed body could not be decompressed: ${(error as Error).message}` });
  }
}

/** Whether an Accept-Encoding header accepts gzip (and does not refuse it with `q=0`). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (acceptEncoding === undefined) return false;
  return acceptEncoding.split(',').some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (name !== 'gzip' && name !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** Whether an answer is gzip-compressed: the client accepts it and it is long enough to be worth it. */
export function compressesAnswer(text: string, acceptEncoding: string | undefined): boolean {
  return acceptsGzip(acceptEncoding) && Buffer.byteLength(text) >= GZIP_MIN_LENGTH;
}

/** An answer's body gzip-compressed (on zlib's thread pool: a large answer does not hold the event loop). */
export function gzipAnswer(text: string): Promise<Buffer> {
  return gzipText(text, GZIP_LEVEL);
}
