import { AbortedError } from '../core/errors/aborted-error.js';
import { ModelNotFoundError } from './errors/model-not-found-error.js';
import { ModelRuntimeError } from './errors/model-runtime-error.js';
import { FrameworkError } from '../core/framework-error.js';

/** Where a provider sends its requests, for error messages. */
export interface RuntimeAddress {
  /** The runtime's address without credentials. */
  baseUrl: string;
  /** The settings that choose the address, e.g. `OLLAMA_HOST or llmConfig.base_url`. */
  setting: string;
}

const CONNECTION_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current = error;
  while (current !== undefined && current !== null && chain.length < 6 && !chain.includes(current)) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * True when `fetch` failed below HTTP: refused connection, unknown host,
 * reset socket, or a body cut off mid-stream.
 */
export function isConnectionFailure(error: unknown): boolean {
  return causes(error).some((e) => {
    const code = errorCode(e);
    if (code !== undefined && CONNECTION_CODES.has(code)) return true;
    return e instanceof TypeError && (e.message === 'fetch failed' || e.message === 'terminated');
  });
}

function connectionReason(error: unknown): string {
  const chain = causes(error);
  for (const e of chain.toReversed()) {
    const code = errorCode(e);
    if (code !== undefined) return code;
  }
  const last = chain.at(-1);
  return last instanceof Error ? last.message : String(last);
}

export function runtimeUnavailable(address: RuntimeAddress, cause: unknown): ModelRuntimeError {
  return new ModelRuntimeError({
    code: 'model_runtime_unavailable',
    baseUrl: address.baseUrl,
    message:
      `Cannot reach the model runtime at ${address.baseUrl} (${connectionReason(cause)}). ` +
      `Start one with \`framework-cli model serve\` (or \`ollama serve\`), ` +
      `or point ${address.setting} at a running runtime.`,
    cause,
  });
}

export function modelError(address: RuntimeAddress, detail: string, cause?: unknown): ModelRuntimeError {
  return new ModelRuntimeError({
    code: 'model_error',
    baseUrl: address.baseUrl,
    message: `The model runtime at ${address.baseUrl} returned an error: ${detail}`,
    cause,
  });
}

export function modelNotFound(address: RuntimeAddress, model: string, cause?: unknown): ModelNotFoundError {
  return new ModelNotFoundError({ model, baseUrl: address.baseUrl, cause });
}

/** True when an error text says the model is missing (as opposed to a wrong URL path). */
export function mentionsMissingModel(text: string): boolean {
  return /model/i.test(text) && /not found|does not exist|no such|not exist|unknown/i.test(text);
}

/**
 * The error a provider call rejects with, for anything not already mapped:
 * `AbortedError` when the caller's signal fired, our own errors unchanged,
 * connection failures as `model_runtime_unavailable`, the rest as `model_error`.
 */
export function normalizeModelError(error: unknown, address: RuntimeAddress, signal: AbortSignal | undefined): Error {
  if (signal?.aborted) return new AbortedError({ cause: signal.reason });
  if (FrameworkError.isInstance(error)) return error;
  if (isConnectionFailure(error)) return runtimeUnavailable(address, error);
  const detail = error instanceof Error ? error.message : String(error);
  return modelError(address, detail, error);
}

/**
 * An AbortController that also fires when `outer` fires. The provider aborts
 * it itself to close an HTTP stream the consumer stopped reading.
 */
export function linkedController(outer: AbortSignal | undefined): { controller: AbortController; dispose: () => void } {
  const controller = new AbortController();
  if (!outer) return { controller, dispose: () => {} };
  if (outer.aborted) {
    controller.abort(outer.reason);
    return { controller, dispose: () => {} };
  }
  const onAbort = () => controller.abort(outer.reason);
  outer.addEventListener('abort', onAbort, { once: true });
  return { controller, dispose: () => outer.removeEventListener('abort', onAbort) };
}

/** `url` without credentials or a trailing slash; unchanged when it is not a URL. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/+$/, '');
  } catch {
    return url;
  }
}
