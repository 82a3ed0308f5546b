import { context, trace } from '@opentelemetry/api';
import { AgentNotReadyError } from '../core/errors/agent-not-ready-error.js';
import { tracingEnabled } from '../core/telemetry/tracing.js';
import { FrameworkError } from '../core/framework-error.js';
import { PermissionError } from './errors/permission-error.js';
import { SignatureError } from './errors/signature-error.js';
import type { SigningKey } from './signing/signing-key.js';
import { signRequest } from './signing/request-signature.js';
import { httpFetch, isLostMidAnswer, isOversizedAnswer, JSON_CALL_MAX_BYTES, wholeText, wholeUnlessStream } from './http-fetch.js';

/**
 * A `fetch` for the SDK's transports that signs every request from `source`
 * to `target` with `key` (or sends it unsigned when `key` is undefined), and
 * turns the receiving agent's refusals into our errors: 401 →
 * `SignatureError`, 403 → `PermissionError`, connection refused →
 * `AgentNotReadyError`.
 *
 * Sent with `httpFetch` (`node:http`, a third of Node `fetch`'s CPU per
 * call) unless `base` is given; a call made inside a span while tracing is on
 * goes through Node's `fetch`, which the tracing instruments (client span,
 * `traceparent`).
 */
export function signingFetch(options: { source: string; target: string; key: SigningKey | undefined; base?: typeof fetch }): typeof fetch {
  const base = options.base ?? defaultFetch;
  return async (input, init) => {
    const request = input instanceof Request ? input : undefined;
    const url = new URL(request ? request.url : input.toString());
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    const body = typeof init?.body === 'string' ? init.body : init?.body === undefined || init.body === null ? '' : undefined;
    if (body === undefined) throw new TypeError('signingFetch signs string bodies only (JSON-RPC requests).');
    const headers = new Headers(init?.headers ?? request?.headers);
    if (options.key) {
      const signed = signRequest({ method, path: `${url.pathname}${url.search}`, body, source: options.source, target: options.target, key: options.key });
      for (const [name, value] of Object.entries(signed)) headers.set(name, value);
    }
    let response: Response;
    try {
      // redirect 'error': a signed call is never re-sent elsewhere (its signature names the path,
      // and a redirect to another host would hand that host a signed request); undici also
      // skips cloning the request, and tee-ing its body, for every other redirect mode.
      response = await base(url, { ...init, method, headers, body: method === 'GET' || method === 'HEAD' ? null : body, redirect: 'error' });
    } catch (error) {
      if (isAbort(error)) throw error;
      const detail = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      if (isOversizedAnswer(error)) {
        throw new FrameworkError({
          code: 'agent_http_error',
          message: `${options.target} at ${url.origin} answered ${url.pathname} with more than ${JSON_CALL_MAX_BYTES} bytes, more than an A2A answer may be; the call was dropped.`,
          cause: error,
        });
      }
      if (detail === 'unexpected redirect') {
        throw new FrameworkError({
          code: 'agent_http_error',
          message: `${options.target} at ${url.origin} answered ${url.pathname} with a redirect, which a signed A2A call does not follow: put the agent's final address in its card's supportedInterfaces.`,
          cause: error,
        });
      }
      const code = error instanceof Error && error.cause instanceof Error ? (error.cause as NodeJS.ErrnoException).code : undefined;
      throw new AgentNotReadyError({
        url: url.origin,
        detail,
        cause: error,
        unreached: code !== undefined && UNREACHED_CODES.has(code),
        ...(isLostMidAnswer(error) ? { lostAgent: options.target } : {}),
      });
    }
    if (response.status === 401 || response.status === 403) {
      const message = await refusalMessage(response);
      if (response.status === 401) throw new SignatureError({ failure: 'bad_signature', message: `${options.target} refused the call: ${message}` });
      throw new PermissionError({ reason: `refused by ${options.target}: ${message}`, source: options.source, target: options.target });
    }
    return response;
  };
}

/** `httpFetch`, or Node's `fetch` (instrumented) for a call made within a span while tracing is on, its answer bounded as `httpFetch`'s. */
function defaultFetch(input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> {
  if ((tracingEnabled() && trace.getSpan(context.active()) !== undefined) || !(input instanceof URL)) return fetch(input, init).then(wholeUnlessStream);
  const body = init?.body;
  return httpFetch(input, {
    method: init?.method ?? 'GET',
    headers: init?.headers instanceof Headers ? init.headers : new Headers(init?.headers),
    body: typeof body === 'string' ? body : null,
    signal: init?.signal,
  });
}

/** Socket errors that mean the request never left: nothing reached the agent. */
export const UNREACHED_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** The most of a refusal's body read for its message (a refusal without end is not held in memory). */
const REFUSAL_MAX_BYTES = 64 * 1024;

async function refusalMessage(response: Response): Promise<string> {
  const text = await wholeText(response, REFUSAL_MAX_BYTES).catch(() => '');
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON: use the text
  }
  return text.slice(0, 300) || `HTTP ${response.status}`;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}
