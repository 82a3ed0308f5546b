import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { readStreamBytes } from '../core/server/read-json-body.js';
import { activeTraceIds } from '../core/telemetry/tracing.js';

/** What {@link httpFetch} is given: what `signingFetch` sends (a string body or none, a method, headers, an optional signal). */
export interface HttpFetchInit {
  method: string;
  headers: Headers;
  body: string | null;
  signal?: AbortSignal | null | undefined;
}

/** Keep-alive connections per process, as Node's `fetch` keeps them (its sockets do not hold the process open). */
const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

/** Statuses whose response has no body (the `Response` constructor refuses one). */
const NULL_BODY_STATUS = new Set([204, 205, 304]);
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);

/** A peer silent this long (no headers, or no body bytes) fails the call: Node `fetch`'s (undici's) header and body timeouts. */
export const HTTP_FETCH_IDLE_TIMEOUT_MS = 300_000;

/**
 * A `fetch` over `node:http` / `node:https` for the A2A client transports,
 * used by `signingFetch`: the SDK's JSON-RPC and REST transports take a
 * `fetch`, and Node's own (undici) spends about a third of the caller's CPU
 * per hop on the Fetch standard's machinery (request objects, body streams,
 * abort plumbing) for what is one POST of a JSON string. Same contract for
 * what the transports use: the body is sent exactly as given (UTF-8, with its
 * `Content-Length`); a redirect is never followed (it fails as `fetch` with
 * `redirect: 'error'` does); a failure before the answer rejects as `fetch`
 * does (`TypeError('fetch failed')` with the socket error as `cause`), an
 * abort with the signal's reason. The answer is a standard `Response`: an
 * event stream's body streams as it arrives (SSE events reach the caller one
 * by one, and a peer lost mid-answer errors it with `ECONNRESET`); any other
 * body is read whole first and handed over as bytes (a peer lost mid-answer
 * then rejects the call: `isLostMidAnswer`; so does one past
 * {@link JSON_CALL_MAX_BYTES}, with an `EMSGSIZE` cause: see `isOversizedAnswer`).
 */
export function httpFetch(url: URL, init: HttpFetchInit): Promise<Response> {
  const headers: Record<string, string> = {};
  init.headers.forEach((value, name) => (headers[name] = value));
  return requestOverNode(url, { ...init, headers }, { whole: false, maxBytes: JSON_CALL_MAX_BYTES }, (response, status, body) =>
    responseOf(response, status, init.method, body),
  );
}

/**
 * One request over `node:http`: the heart of {@link httpFetch} and
 * {@link jsonCall}. `answer` makes the result from the peer's answer: with its
 * body read whole, or (not `whole`, for an event stream or no body) with none
 * read yet; if it throws, the call fails as `fetch` fails. A body over
 * `maxBytes` fails the call as lost mid-answer.
 */
function requestOverNode<T>(
  url: URL,
  init: Omit<HttpFetchInit, 'headers'> & { headers: Record<string, string> },
  options: { whole: boolean; maxBytes: number },
  answer: (response: http.IncomingMessage, status: number, body: Buffer | undefined) => T,
): Promise<T> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  const agent = url.protocol === 'http:' ? agents['http:'] : url.protocol === 'https:' ? agents['https:'] : undefined;
  if (agent === undefined)
    return Promise.reject(new TypeError('fetch failed', { cause: new TypeError(`${url.protocol} URLs are not supported (http: or https: only).`) }));
  const headers = init.body === null ? init.headers : { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) };
  return new Promise<T>((resolve, reject) => {
    let answered: http.IncomingMessage | undefined;
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    // After the answer, an abort or a silent peer errors its body; before, the request (which rejects above).
    const stop = (error: Error) => (answered ? answered.destroy(error) : request.destroy(error));
    const onAbort = () => stop(abortReason(signal!));
    const request = (url.protocol === 'https:' ? https : http).request(url, { method: init.method, headers, agent }, (response) => {
      answered = response;
      response.once('close', () => signal?.removeEventListener('abort', onAbort));
      const status = response.statusCode ?? 0;
      if (REDIRECT_STATUS.has(status) && response.headers.location !== undefined) {
        response.destroy();
        fail(new TypeError('fetch failed', { cause: new TypeError('unexpected redirect') }));
        return;
      }
      if (status < 200 || status > 599) {
        response.destroy();
        fail(new TypeError('fetch failed', { cause: new RangeError(`the peer answered with HTTP status ${status}`) }));
        return;
      }
      const answerWith = (body: Buffer | undefined) => {
        let result: T;
        try {
          result = answer(response, status, body);
        } catch (error) {
          // A status text or header the Fetch standard refuses: a failed call, never an exception out of this callback.
          response.destroy();
          fail(new TypeError('fetch failed', { cause: error }));
          return;
        }
        settled = true;
        resolve(result);
      };
      if (hasNoBody(status, init.method) || (!options.whole && isEventStream(response.headers['content-type']))) {
        answerWith(undefined);
        return;
      }
      // A JSON (or other whole) answer is read here and handed over as bytes: a body stream bridged from Node's to a
      // Web stream costs more than the rest of a small answer, and the transports read such answers whole anyway.
      const chunks: Buffer[] = [];
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > options.maxBytes) {
          response.destroy(oversized(options.maxBytes));
          return;
        }
        chunks.push(chunk);
      });
      response.once('end', () => answerWith(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
      response.once('error', (error) => fail(signal?.aborted ? abortReason(signal) : lostMidAnswer(error)));
      response.once('close', () => {
        if (!response.complete) fail(lostMidAnswer(Object.assign(new Error('the peer closed the connection mid-answer'), { code: 'ECONNRESET' })));
      });
    });
    request.setTimeout(HTTP_FETCH_IDLE_TIMEOUT_MS, () => {
      const timeout = Object.assign(new Error(`${url.origin} sent nothing for ${HTTP_FETCH_IDLE_TIMEOUT_MS / 1000} s`), { code: 'ETIMEDOUT' });
      stop(timeout);
    });
    request.on('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      fail(signal?.aborted ? abortReason(signal) : new TypeError('fetch failed', { cause: error }));
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    request.end(init.body ?? undefined);
  });
}

/** Whether an answer has no body by its status or the request's method. */
function hasNoBody(status: number, method: string): boolean {
  return NULL_BODY_STATUS.has(status) || method === 'HEAD';
}

/** Whether a content type is an event stream's, whose body {@link httpFetch} hands over as it arrives (SSE events reach the caller one by one). */
function isEventStream(type: string | null | undefined): boolean {
  return typeof type === 'string' && /^\s*text\/event-stream/i.test(type);
}

/**
 * The standard `Response` for a Node answer: with `body` (the answer read whole), or else a body that streams from the
 * socket. Throws where the Fetch standard refuses a status text or header.
 */
function responseOf(response: http.IncomingMessage, status: number, method: string, body: Buffer | undefined): Response {
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const empty = hasNoBody(status, method);
  const answer = new Response(empty ? null : ((body as Uint8Array<ArrayBuffer> | undefined) ?? (Readable.toWeb(response) as ReadableStream<Uint8Array>)), {
    status,
    statusText: response.statusMessage ?? '',
    headers,
  });
  if (empty) response.resume();
  return answer;
}

const MID_ANSWER = Symbol('lost mid-answer');

/** The rejection of a call whose peer went away (or went silent) after its answer began: the request was sent. */
function lostMidAnswer(cause: unknown): TypeError {
  return Object.assign(new TypeError('fetch failed', { cause }), { [MID_ANSWER]: true });
}

/** Whether `error` is the rejection of a call whose answer was over its size limit (an `EMSGSIZE` cause). */
export function isOversizedAnswer(error: unknown): boolean {
  return error instanceof TypeError && (error.cause as { code?: unknown } | undefined)?.code === 'EMSGSIZE';
}

/** Whether `error` is {@link httpFetch}'s rejection of a call whose answer began and then broke off. */
export function isLostMidAnswer(error: unknown): boolean {
  return error instanceof TypeError && (error as { [MID_ANSWER]?: boolean })[MID_ANSWER] === true;
}

function abortReason(signal: AbortSignal): Error {
  // Node's fetch rejects with the signal's reason, whatever it is; an Error is what destroy() takes.
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
}

/** What {@link jsonCall} sends: a method, a string body or none, plain headers, an optional signal, and how long it may take. */
export interface JsonCallInit {
  method: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal | undefined;
  /** The whole call, answer read: past this it fails ({@link callFailureDetail}: "no answer within … ms"). */
  timeoutMs: number;
}

/** A {@link jsonCall}'s answer: its status and its body as text (UTF-8, a leading BOM dropped, as `Response.text()`). */
export interface JsonCallAnswer {
  readonly status: number;
  /** A 2xx status. */
  readonly ok: boolean;
  readonly text: string;
}

/**
 * The largest answer a {@link jsonCall} takes, and the largest non-stream
 * answer {@link httpFetch} reads whole: a peer sending more fails the call
 * rather than filling memory.
 */
export const JSON_CALL_MAX_BYTES = 64 * 1024 * 1024;

const utf8 = new TextDecoder();

/** The reason a {@link jsonCall} that ran out of time rejects with. */
class CallTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

/**
 * A call to one of our services (the Guardian, the policy engine) with a
 * string body, answered whole: over `node:http`, or over Node's `fetch` when
 * it is made within a span while tracing is on (the tracing instrumentation
 * wraps that `fetch`: its client span and the `traceparent` it sends). Node's
 * `fetch` cost the Guardian about a third of its CPU per decision (its
 * request objects, body streams and abort plumbing), and so did making a
 * `Response` of the answer where `@hono/node-server` has replaced the global
 * one (every server with a Hono route loads it): this returns the status and
 * the text, no `Response`. The timeout is one timer, cleared when the answer
 * is in (`AbortSignal.timeout`'s fired for every call, long after it). A
 * failure rejects as `fetch` does (`TypeError('fetch failed')` with the
 * socket error as `cause`, the caller's abort with its signal's reason);
 * {@link callFailureDetail} says what happened in words.
 */
export async function jsonCall(url: string, init: JsonCallInit): Promise<JsonCallAnswer> {
  const caller = init.signal;
  if (caller?.aborted) throw abortReason(caller);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new CallTimeout(init.timeoutMs)), init.timeoutMs);
  const onAbort = () => controller.abort(caller!.reason);
  caller?.addEventListener('abort', onAbort, { once: true });
  try {
    if (activeTraceIds() !== undefined || !URL.canParse(url)) {
      // A redirect fails the call, as over node:http: a decision is asked of the address configured, nowhere else.
      const response = await fetch(url, {
        method: init.method,
        ...(init.headers ? { headers: init.headers } : {}),
        body: init.body ?? null,
        redirect: 'error',
        signal: controller.signal,
      });
      const text = await wholeText(response, JSON_CALL_MAX_BYTES).catch((cause: unknown) => {
        throw controller.signal.aborted ? abortReason(controller.signal) : lostMidAnswer(cause);
      });
      return { status: response.status, ok: response.ok, text };
    }
    return await requestOverNode(
      new URL(url),
      // Our own callers' fixed headers, handed to node:http as they are: a `Headers` object cost a call 11 µs.
      { method: init.method, headers: init.headers ?? {}, body: init.body ?? null, signal: controller.signal },
      { whole: true, maxBytes: JSON_CALL_MAX_BYTES },
      (response, status, body) => {
        if (body === undefined) response.resume();
        return { status, ok: status >= 200 && status <= 299, text: body === undefined ? '' : utf8.decode(body) };
      },
    );
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', onAbort);
  }
}

/** A `Response`'s body as text, as `text()` reads it, failing past `maxBytes` (a peer sending more is not held in memory). */
export async function wholeText(response: Response, maxBytes: number): Promise<string> {
  return response.body === null ? '' : utf8.decode(await readStreamBytes(response.body, maxBytes, () => oversized(maxBytes)));
}

/**
 * A `fetch` answer held to what {@link httpFetch} answers: an event stream as
 * it is, any other body read whole first, past {@link JSON_CALL_MAX_BYTES}
 * rejecting as an oversized answer (`isOversizedAnswer`) and a peer gone
 * mid-answer as lost (`isLostMidAnswer`), so Node's `fetch` (the traced path)
 * answers as `httpFetch` does.
 */
export async function wholeUnlessStream(response: Response): Promise<Response> {
  if (response.body === null || isEventStream(response.headers.get('content-type'))) return response;
  const body = await readStreamBytes(response.body, JSON_CALL_MAX_BYTES, () => lostMidAnswer(oversized(JSON_CALL_MAX_BYTES))).catch((error: unknown) => {
    // undici's "terminated" (the peer went away mid-answer) is marked as httpFetch marks it; an abort stays an abort.
    throw error instanceof TypeError && !isLostMidAnswer(error) ? lostMidAnswer(error.cause ?? error) : error;
  });
  return new Response(body as Uint8Array<ArrayBuffer>, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function oversized(maxBytes: number): Error {
  return Object.assign(new Error(`the answer is over ${maxBytes} bytes`), { code: 'EMSGSIZE' });
}

/**
 * What went wrong in a failed {@link jsonCall}, in words for an error
 * message: "no answer within … ms", "the answer was cut off (…)", "the answer
 * is over … bytes", the socket's error (`connect ECONNREFUSED …`), or the
 * caller's abort reason.
 */
export function callFailureDetail(error: unknown): string {
  if (error instanceof CallTimeout) return error.message;
  if (isLostMidAnswer(error)) {
    const cause = (error as TypeError).cause;
    return isOversizedAnswer(error) ? describe(cause) : `the answer was cut off (${describe(cause)})`;
  }
  if (error instanceof TypeError && error.cause instanceof Error) return error.cause.message;
  return describe(error);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
