import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';
import { BadRequestError } from '../errors/bad-request-error.js';
import { nonFiniteNumberAt } from '../non-finite-number.js';
import { nodeBindings, requestHeader } from './node-bindings.js';
import { bindActiveContext } from '../telemetry/tracing.js';

/** Deepest nesting of arrays and objects accepted in a request body (deeper input would overflow validators' recursion). */
export const MAX_JSON_DEPTH = 64;

export interface ReadJsonBodyOptions {
  maxBytes: number;
  /** Refuse strings and keys holding a lone UTF-16 surrogate (`"\ud800"`), which cannot be encoded as UTF-8 (for ids that become storage keys or hashes). */
  wellFormedText?: boolean;
}

/**
 * Reads a request body as JSON, enforcing the content type, a size limit
 * (also for chunked bodies with no Content-Length), a nesting depth of
 * `MAX_JSON_DEPTH` and finite numbers (`1e400` would be read as Infinity and
 * passed on as null). Rejects with `BadRequestError` (415, 413 or 400), never
 * with a parser exception.
 */
export async function readJsonBody(c: Context, options: ReadJsonBodyOptions): Promise<unknown> {
  const contentType = requestHeader(c, 'content-type');
  checkJsonContentType(contentType);
  return parseJsonBodyText(await readBodyText(c, options.maxBytes), options);
}

/** Refuses (415) a request whose Content-Type is not JSON. */
export function checkJsonContentType(contentType: string | undefined): void {
  // The usual header, exactly: nothing to split or lower-case.
  if (contentType === 'application/json') return;
  const mediaType = contentType?.split(';', 1)[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json' && !mediaType?.endsWith('+json')) {
    throw new BadRequestError({
      code: 'unsupported_media_type',
      message: `Send the body as JSON with "Content-Type: application/json" (got ${contentType ? `"${contentType}"` : 'no Content-Type'}).`,
    });
  }
}

/** A request body's text parsed as {@link readJsonBody} does (empty, invalid, too deep or overflowing: 400). */
export function parseJsonBodyText(text: string, options: Pick<ReadJsonBodyOptions, 'wellFormedText'> = {}): unknown {
  if (text.trim() === '') throw new BadRequestError({ code: 'invalid_json', message: 'The request body is empty; send a JSON object.' });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new BadRequestError({
      code: 'invalid_json',
      message: `The request body is not valid JSON: ${(error as Error).message}`,
    });
  }
  const wellFormedText = options.wellFormedText ?? false;
  // The usual small body (`{"query": "..."}`): one level, no numbers, so neither walk below can find anything.
  if (!wellFormedText && isFlatStringObject(value)) return value;
  checkJsonShape(value, wellFormedText);
  // JSON.parse reads 1e400 as Infinity, which JSON.stringify writes as null: refused rather than passed on changed.
  const overflow = nonFiniteNumberAt(value);
  if (overflow !== undefined) {
    throw new BadRequestError({
      code: 'invalid_request',
      message: `The request body holds a number beyond what can be read exactly (such as 1e400) at ${overflow === '' ? 'its top level' : overflow}; send a finite JSON number.`,
    });
  }
  return value;
}

const LONE_SURROGATE = /\p{Cs}/u;

/** An object (not an array) whose every value is a string. */
function isFlatStringObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  for (const key in record) if (typeof record[key] !== 'string') return false;
  return true;
}

/**
 * Refuses parsed JSON nested deeper than `MAX_JSON_DEPTH` with a
 * `BadRequestError` (400), for bodies a service parses itself: deeper
 * input would overflow the recursion of validators and handlers.
 */
export function checkJsonDepth(value: unknown): void {
  checkJsonShape(value, false);
}

/** Walks parsed JSON without recursion: too deep, or (when asked) a lone surrogate in a string or key, is a 400. */
function checkJsonShape(root: unknown, wellFormedText: boolean): void {
  const pending: Array<[value: unknown, depth: number]> = [[root, 0]];
  const badText = (text: string) => wellFormedText && LONE_SURROGATE.test(text);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, depth] = next;
    if (typeof value === 'string') {
      if (badText(value)) throw illFormed();
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_JSON_DEPTH) {
      throw new BadRequestError({ code: 'invalid_request', message: `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} deep.` });
    }
    if (Array.isArray(value)) {
      for (const item of value) pending.push([item, depth + 1]);
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      if (badText(key)) throw illFormed();
      pending.push([item, depth + 1]);
    }
  }
}

function illFormed(): BadRequestError {
  return new BadRequestError({
    code: 'invalid_request',
    message: 'The request body holds a lone UTF-16 surrogate (such as "\\ud800") in a string; send well-formed Unicode text.',
  });
}

/** True when the request declares or carries a body. */
export function hasBody(c: Context): boolean {
  const length = requestHeader(c, 'content-length');
  if (length !== undefined) return length !== '0';
  return requestHeader(c, 'transfer-encoding') !== undefined;
}

/** The raw body text, enforcing `maxBytes` (413 `BadRequestError` past it), whatever the content type. */
export async function readBodyText(c: Context, maxBytes: number): Promise<string> {
  const node = nodeBindings(c);
  if (node) return readNodeBody(node.incoming, node.outgoing, maxBytes);
  return (await readBodyBytes(c, maxBytes)).toString('utf8');
}

/** The raw body bytes from the request's stream, enforcing `maxBytes` (413 `BadRequestError` past it, declared or streamed). */
export async function readBodyBytes(c: Context, maxBytes: number): Promise<Buffer> {
  const declared = Number(c.req.header('content-length') ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  return c.req.raw.body ? readStreamBytes(c.req.raw.body, maxBytes, () => tooLarge(maxBytes)) : Buffer.alloc(0);
}

/**
 * A web stream's bytes, read whole; past `maxBytes` the stream is cancelled
 * and `overLimit()` is thrown, so a sender of more is never held in memory.
 */
export async function readStreamBytes(stream: ReadableStream<Uint8Array>, maxBytes: number, overLimit: () => Error): Promise<Buffer> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    size += next.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw overLimit();
    }
    chunks.push(next.value);
  }
  return Buffer.concat(chunks);
}

/**
 * The body of a Node request as text, enforcing `maxBytes` (413
 * `BadRequestError` past it, declared or streamed; the answer then closes the
 * connection rather than draining the rest). A body cut short is a 400.
 */
export function readNodeBody(incoming: IncomingMessage, outgoing: ServerResponse, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => receiveNodeBody(incoming, outgoing, maxBytes, (error, text) => (error ? reject(error) : resolve(text))));
}

/** {@link readNodeBody} with a callback, called once, for a hot path that answers in the same turn. */
export function receiveNodeBody(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  maxBytes: number,
  done: (error: BadRequestError | undefined, text: string) => void,
): void {
  // Called from the body's events: in the request's trace, not the socket's.
  done = bindActiveContext(done);
  const declared = Number(incoming.headers['content-length'] ?? Number.NaN);
  if (declared > maxBytes) {
    done(tooLarge(maxBytes), '');
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // Settled once; the listeners stay (removing four per request costs more than they do, and an
  // 'error' listener left in place keeps a late socket error from being thrown).
  let settled = false;
  const settle = (error: BadRequestError | undefined, text: string) => {
    if (settled) return;
    settled = true;
    done(error, text);
  };
  const onData = (chunk: Buffer) => {
    if (settled) return;
    size += chunk.byteLength;
    if (size <= maxBytes) {
      chunks.push(chunk);
      return;
    }
    incoming.pause();
    outgoing.shouldKeepAlive = false;
    settle(tooLarge(maxBytes), '');
  };
  const onEnd = () => settle(undefined, chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8'));
  const onError = (error: Error) =>
    settle(new BadRequestError({ code: 'invalid_request', message: `The request body could not be read: ${error.message}`, cause: error }), '');
  const onClose = () => {
    if (!incoming.complete)
      settle(new BadRequestError({ code: 'invalid_request', message: 'The client closed the connection before the body was complete.' }), '');
  };
  incoming.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
}

/**
 * {@link readJsonBody} on Node's own request, for a direct route: the
 * content type refused (415) before the body is read, then the body within
 * `maxBytes` (413), then its JSON (400), each as the app's routes answer.
 * `done` is called once, with the error or the parsed value.
 */
export function receiveNodeJson(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  options: ReadJsonBodyOptions,
  done: (error: unknown, value: unknown) => void,
): void {
  try {
    checkJsonContentType(incoming.headers['content-type']);
  } catch (error) {
    done(error, undefined);
    return;
  }
  receiveNodeBody(incoming, outgoing, options.maxBytes, (error, text) => {
    if (error) {
      done(error, undefined);
      return;
    }
    let value: unknown;
    try {
      value = parseJsonBodyText(text, options);
    } catch (thrown) {
      done(thrown, undefined);
      return;
    }
    done(undefined, value);
  });
}

function tooLarge(maxBytes: number): BadRequestError {
  return new BadRequestError({
    code: 'payload_too_large',
    message: `The request body is larger than the limit of ${maxBytes} bytes.`,
  });
}
