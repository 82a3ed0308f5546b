import { A2A_VERSION_HEADER, type AgentCard } from '@a2a-js/sdk';
import { isV1JsonRpcMethod } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { JsonRpcTransportHandler, validateVersion } from '@a2a-js/sdk/server';
import { isPlainObject } from '../core/json.js';
import { errorFields, type Logger } from '../core/logger.js';
import { checkJsonDepth } from '../core/server/read-json-body.js';
import type { SseResponseOptions } from '../core/server/sse-response.js';
import { ABSENT_VERSION, callContextFrom, messageOf } from './a2a-admission.js';
import { A2A_LEGACY_PROTOCOL_VERSION, A2A_PROTOCOL_VERSION } from './agent-card.js';
import { invalidJsonRpcRequest, jsonRpcIdOf } from './json-rpc-request.js';
import { RpcEventStream, type RpcStreamEvent } from './rpc-event-stream.js';
import type { AdmittedCaller, A2ARequestGuard } from './request-guard.js';

type JsonRpcAnswer = { jsonrpc: '2.0'; id: unknown; result?: unknown; error?: unknown };

/**
 * Where a JSON-RPC request came from and how its answer leaves: Hono's
 * context (`c.json`, `sseResponse`) or Node's own request and response (the
 * direct route). `R` is what the route returns.
 */
export interface RpcExchange<R> {
  header(name: string): string | undefined;
  json(body: unknown, status?: number): R;
  stream(options: Omit<SseResponseOptions<RpcStreamEvent>, 'abort' | 'keepAliveMs'>): R;
}

/** What answering a JSON-RPC request needs of its endpoint. */
export interface RpcAnswerer {
  card: AgentCard;
  guard: A2ARequestGuard;
  transport: JsonRpcTransportHandler;
  legacy: LegacyJsonRpcTransportHandler;
  logger: Logger;
}

/** A refusal before the SDK sees the request, as a JSON-RPC error (-32600) that also names our error code. */
export function jsonRpcRefusal(code: string, message: string): JsonRpcAnswer {
  return { jsonrpc: '2.0', id: null, error: { code: -32600, message, data: { code } } };
}

/**
 * Answers the body of an admitted JSON-RPC request (its signature already
 * verified): parse errors, depth and batches refused as JSON-RPC errors, then
 * the policy check (`guard.authorize`, which throws a refusal for the route's
 * error handling), then the SDK's 1.0 or v0.3 transport handler, one JSON
 * answer or an SSE stream. The same answers on every route that serves it.
 */
export async function answerJsonRpc<R>(io: RpcExchange<R>, body: string, caller: AdmittedCaller, endpoint: RpcAnswerer): Promise<R> {
  let rpc: unknown;
  try {
    rpc = JSON.parse(body);
  } catch {
    return io.json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Invalid JSON payload.' } });
  }
  try {
    checkJsonDepth(rpc);
  } catch (error) {
    // Deeper input would overflow the SDK's validation (a stack overflow, once a 500).
    return io.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: ${(error as Error).message}` } }, 400);
  }
  // A2A defines single requests only; the SDK would read an array as a malformed request object.
  if (Array.isArray(rpc))
    return io.json(jsonRpcRefusal('invalid_request', 'Invalid Request: A2A does not support JSON-RPC batches; send one request per call.'), 400);
  await endpoint.guard.authorize(caller, messageOf(rpc));
  return answer(io, rpc, caller, endpoint);
}

async function answer<R>(io: RpcExchange<R>, rpc: unknown, caller: AdmittedCaller, endpoint: RpcAnswerer): Promise<R> {
  const { logger } = endpoint;
  const id = jsonRpcIdOf(rpc);
  // Not a JSON-RPC 2.0 request object: -32600 before any handler reads its params (HTTP 200, as JSON-RPC errors are).
  const invalid = invalidJsonRpcRequest(rpc);
  if (invalid !== undefined) return io.json({ jsonrpc: '2.0', id, error: { code: -32600, message: `Invalid Request: ${invalid}.` } });
  // No A2A-Version means 0.3 (the spec), unless the method is a 1.0 name (`SendMessage`, never a 0.3 one): clients
  // that name 1.0 methods but send no header (the TCK's main branch) get the 1.0 handler.
  const header = io.header(A2A_VERSION_HEADER);
  const method = isPlainObject(rpc) && typeof rpc.method === 'string' ? rpc.method : '';
  const isLegacy = header === undefined ? !isV1JsonRpcMethod(method) : header === A2A_LEGACY_PROTOCOL_VERSION;
  const context = callContextFrom(io.header, caller, {
    ...(isLegacy ? { extensionsHeader: 'X-A2A-Extensions' } : {}),
    ...(header === undefined ? { version: isLegacy ? ABSENT_VERSION : A2A_PROTOCOL_VERSION } : {}),
  });
  const mapError = isLegacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : JsonRpcTransportHandler.mapToJSONRPCError;
  try {
    validateVersion(context.requestedVersion, endpoint.card, 'JSONRPC');
  } catch (error) {
    // The client's mistake, not ours: one line at warn, no stack.
    logger.warn('A2A request refused: unsupported protocol version', { requested: context.requestedVersion, error: (error as Error).message });
    return io.json({ jsonrpc: '2.0', id, error: mapError(error) });
  }
  let outcome;
  try {
    outcome = await (isLegacy ? endpoint.legacy : endpoint.transport).handle(rpc as Record<string, unknown>, context);
  } catch (error) {
    logger.error('A2A request failed', errorFields(error));
    return io.json({ jsonrpc: '2.0', id, error: mapError(error) });
  }
  if (!isAsyncIterable(outcome)) return io.json(outcome);
  // An error before the first event: a request that named A2A-Version 1.0 gets a plain JSON-RPC answer, as the 1.0
  // Python SDK server sends and the 1.0 TCK reads; a 0.3 request, or one with no version (the TCK's main branch),
  // gets an event stream whose one event is the error (0.3 §3.3.1: streaming methods answer 200
  // text/event-stream; the Python 0.3 SDK does so, and those clients refuse any other content type).
  const iterator = outcome[Symbol.asyncIterator]();
  let first: IteratorResult<JsonRpcAnswer> | { failed: JsonRpcAnswer };
  try {
    first = (await iterator.next()) as IteratorResult<JsonRpcAnswer>;
  } catch (error) {
    const failed = { jsonrpc: '2.0' as const, id, error: mapError(error) };
    if (header === A2A_PROTOCOL_VERSION) return io.json(failed);
    first = { failed };
  }
  const failure = (error: unknown): RpcStreamEvent => {
    logger.error('A2A stream failed', errorFields(error));
    return { answer: { jsonrpc: '2.0', id, error: mapError(error) }, failed: true };
  };
  const events =
    'failed' in first
      ? new RpcEventStream({ first: { answer: first.failed, failed: true }, failure })
      : first.done
        ? new RpcEventStream({ failure })
        : new RpcEventStream({ first: { answer: first.value, failed: false }, rest: iterator, failure });
  return io.stream({
    events,
    encode: ({ answer: event, failed }) => (failed ? { event: 'error', data: JSON.stringify(event) } : { data: JSON.stringify(event) }),
  });
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
