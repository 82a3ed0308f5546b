/**
 * Gzip inflation off the event loop and within a bound: zlib works on the
 * thread pool chunk by chunk, so a server keeps answering while a large
 * bundle or request body inflates, and stops the moment the output passes
 * `maxBytes` (a gzip bomb costs at most that much memory and time).
 */
import { gunzip, gzip } from 'node:zlib';

/** Gzip data whose inflated form would pass the bound it was read within. */
export class InflateLimitError extends Error {
  override readonly name = 'InflateLimitError';
}

/** Inflation chunks: larger than zlib's 16 KiB default, so a 256 MiB bundle is not 16,000 round trips to the thread pool. */
const CHUNK_BYTES = 256 * 1024;

/**
 * The inflated bytes of `gzipped`, at most `maxBytes` of them: past it the
 * promise rejects with `InflateLimitError`; data that is not gzip rejects
 * with zlib's error.
 */
export function gunzipWithin(gzipped: Uint8Array, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    gunzip(gzipped, { maxOutputLength: maxBytes, chunkSize: CHUNK_BYTES }, (error, inflated) => {
      if (error === null) return resolve(inflated);
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return reject(new InflateLimitError(`inflates past ${maxBytes} bytes`));
      reject(error);
    });
  });
}

/** `text` gzip-compressed on zlib's thread pool (at zlib's default level unless `level` is given). */
export function gzipText(text: string, level?: number): Promise<Buffer> {
  return new Promise((resolve, reject) => gzip(text, level === undefined ? {} : { level }, (error, out) => (error ? reject(error) : resolve(out))));
}
