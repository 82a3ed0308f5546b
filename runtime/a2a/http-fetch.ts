import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
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
 * then rejects the call: `isLostMidAnswer`).
 */
export function httpFetch(url: URL, init: HttpFetchInit): Promise<Response> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  const agent = url.protocol === 'http:' ? agents['http:'] : url.protocol === 'https:' ? agents['https:'] : undefined;
  if (agent === undefined)
    return Promise.reject(new TypeError('fetch failed', { cause: new TypeError(`${url.protocol} URLs are not supported (http: or https: only).`) }));
  const headers: Record<string, string> = {};
  init.headers.forEach((value, name) => (headers[name] = value));
  if (init.body !== null) headers['content-length'] = String(Buffer.byteLength(init.body));
  return new Promise<Response>((resolve, reject) => {
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
        let answer: Response;
        try {
          answer = responseOf(response, status, init.method, body);
        } catch (error) {
          // A status text or header the Fetch standard refuses: a failed call, never an exception out of this callback.
          response.destroy();
          fail(new TypeError('fetch failed', { cause: error }));
          return;
        }
        settled = true;
        resolve(answer);
      };
      if (streams(response, status, init.method)) {
        answerWith(undefined);
        return;
      }
      // A JSON (or other whole) answer is read here and handed over as bytes: a body stream bridged from Node's to a
      // Web stream costs more than the rest of a small answer, and the transports read such answers whole anyway.
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
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

/** Whether an answer's body is handed over as it arrives: an event stream (SSE events reach the caller one by one), or no body at all. */
function streams(response: http.IncomingMessage, status: number, method: string): boolean {
  if (NULL_BODY_STATUS.has(status) || method === 'HEAD') return true;
  const type = response.headers['content-type'];
  return type !== undefined && /^\s*text\/event-stream/i.test(type);
}

/**
 * The standard `Response` for a Node answer: with `body` (the answer read whole), or else a body that streams from the
 * socket. Throws where the Fetch standard refuses a status text or header.
 */
function responseOf(response: http.IncomingMessage, status: number, method: string, body: Buffer | undefined): Response {
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const empty = NULL_BODY_STATUS.has(status) || method === 'HEAD';
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

/** Whether `error` is {@link httpFetch}'s rejection of a call whose answer began and then broke off. */
export function isLostMidAnswer(error: unknown): boolean {
  return error instanceof TypeError && (error as { [MID_ANSWER]?: boolean })[MID_ANSWER] === true;
}

function abortReason(signal: AbortSignal): Error {
  // Node's fetch rejects with the signal's reason, whatever it is; an Error is what destroy() takes.
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
}

/** What {@link jsonCallFetch} sends: a method, a string body or none, plain headers, an optional signal. */
export interface JsonCallInit {
  method: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/**
 * A call to one of our services (the Guardian, the policy engine) with a
 * string body: over {@link httpFetch}, or over Node's `fetch` when it is made
 * within a span while tracing is on (the tracing instrumentation wraps that
 * `fetch`: its client span and the `traceparent` it sends). Node's `fetch`
 * cost the Guardian about a third of its CPU per decision (its request
 * objects, body streams and abort plumbing). Errors are `fetch`'s: a failure
 * before the answer is `TypeError('fetch failed')` with the cause, an abort
 * the signal's reason.
 */
export function jsonCallFetch(url: string, init: JsonCallInit): Promise<Response> {
  if (activeTraceIds() !== undefined || !URL.canParse(url)) return fetch(url, init);
  return httpFetch(new URL(url), { method: init.method, headers: new Headers(init.headers), body: init.body ?? null, signal: init.signal });
}
