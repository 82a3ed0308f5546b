import { A2A_VERSION_HEADER } from '@a2a-js/sdk';
import { LegacyRestTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { restStatusFor } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { Context, Hono } from 'hono';
import { isPlainObject } from '../core/json.js';
import { errorFields, silentLogger, type Logger } from '../core/logger.js';
import { clientAbort, requestHeader } from '../core/server/node-bindings.js';
import { decodePathSegment, malformedPathMessage } from '../core/server/path-segment.js';
import { checkJsonDepth } from '../core/server/read-json-body.js';
import { sseResponse } from '../core/server/sse-response.js';
import { authenticateA2ARequest, callContext, messageOf } from './a2a-admission.js';
import { A2A_LEGACY_PROTOCOL_VERSION } from './agent-card.js';
import { eventToProto, sendParamsFromProto, taskPushConfigFromProto, taskPushConfigToProto, taskToProto } from './legacy-rest-proto.js';
import type { A2ARequestGuard } from './request-guard.js';

export interface LegacyRestBindingOptions {
  /** Path of the card's v0.3 HTTP+JSON interface (the routes are under `<basePath>/v1`). */
  basePath: string;
  requestHandler: A2ARequestHandler;
  guard: A2ARequestGuard;
  maxBodyBytes: number;
  logger?: Logger;
  keepAliveMs?: number;
}

/** The 0.3 operations, by the 1.0 JSON-RPC method name (what the policy sees, as on the other bindings). */
type Operation =
  | 'SendMessage'
  | 'SendStreamingMessage'
  | 'GetTask'
  | 'CancelTask'
  | 'SubscribeToTask'
  | 'CreateTaskPushNotificationConfig'
  | 'ListTaskPushNotificationConfigs'
  | 'GetTaskPushNotificationConfig'
  | 'DeleteTaskPushNotificationConfig'
  | 'GetExtendedAgentCard';

/** The A2A 0.3 HTTP+JSON URL table (spec §3.2.3 and the 0.3 proto's HTTP annotations). */
const ROUTES: ReadonlyArray<{ pattern: RegExp; methods: Partial<Record<string, Operation>> }> = [
  { pattern: /^\/v1\/message:send$/, methods: { POST: 'SendMessage' } },
  { pattern: /^\/v1\/message:stream$/, methods: { POST: 'SendStreamingMessage' } },
  { pattern: /^\/v1\/tasks\/([^/:]+)$/, methods: { GET: 'GetTask' } },
  { pattern: /^\/v1\/tasks\/([^/:]+):cancel$/, methods: { POST: 'CancelTask' } },
  { pattern: /^\/v1\/tasks\/([^/:]+):subscribe$/, methods: { GET: 'SubscribeToTask', POST: 'SubscribeToTask' } },
  {
    pattern: /^\/v1\/tasks\/([^/:]+)\/pushNotificationConfigs$/,
    methods: { POST: 'CreateTaskPushNotificationConfig', GET: 'ListTaskPushNotificationConfigs' },
  },
  {
    pattern: /^\/v1\/tasks\/([^/:]+)\/pushNotificationConfigs\/([^/:]+)$/,
    methods: { GET: 'GetTaskPushNotificationConfig', DELETE: 'DeleteTaskPushNotificationConfig' },
  },
  { pattern: /^\/v1\/card$/, methods: { GET: 'GetExtendedAgentCard' } },
];

/** HTTP status of a v0.3 error code (the SDK's v0.3 REST router's table); other errors keep the 1.0 mapping. */
const STATUS_OF_CODE: Record<number, number> = {
  [-32700]: 400,
  [-32600]: 400,
  [-32601]: 404,
  [-32602]: 400,
  [-32603]: 500,
  [-32001]: 404,
  [-32002]: 400,
  [-32003]: 400,
  [-32004]: 400,
  [-32005]: 415,
  [-32006]: 500,
  [-32007]: 400,
};

/** A v0.3 REST error: the v0.3 error object (`{ code, message, data? }`) with its HTTP status. */
function legacyError(error: unknown, status?: number): Response {
  const body = LegacyRestTransportHandler.mapToLegacyHTTPError(error);
  return Response.json(body, { status: status ?? STATUS_OF_CODE[body.code] ?? restStatusFor(error) });
}

function malformed(message: string, status = 400): Response {
  return Response.json({ code: -32600, message }, { status });
}

/**
 * Mounts the A2A v0.3 HTTP+JSON binding under `<basePath>/v1` on `app`
 * (`POST /v1/message:send`, `POST /v1/message:stream` (SSE),
 * `GET /v1/tasks/{id}`, `POST /v1/tasks/{id}:cancel`,
 * `GET|POST /v1/tasks/{id}:subscribe`, push configs under
 * `/v1/tasks/{id}/pushNotificationConfigs`, `GET /v1/card`), for peers on
 * 0.3-era SDKs. Bodies are the 0.3 proto's JSON (`legacy-rest-proto.ts`);
 * the SDK's `LegacyRestTransportHandler` runs them through the same request
 * handler as the 1.0 bindings. Every request passes the same guard first
 * (HMAC signature over method, path and body, then the policy over the
 * message text or the operation's 1.0 method name). A request whose
 * `A2A-Version` is not 0.3 is refused (the 1.0 binding is at its own path).
 */
export function mountLegacyRestBinding(app: Hono, options: LegacyRestBindingOptions): void {
  const logger = options.logger ?? silentLogger;
  const base = options.basePath.replace(/\/+$/, '');
  const transport = new LegacyRestTransportHandler(options.requestHandler);
  app.all(`${base}/v1/*`, async (c) => {
    const path = new URL(c.req.url).pathname.slice(base.length);
    let found: { operation: Operation; params: (string | undefined)[] } | { allowed: string[] } | undefined;
    for (const route of ROUTES) {
      const hit = route.pattern.exec(path);
      if (!hit) continue;
      const operation = route.methods[c.req.method];
      found = operation ? { operation, params: hit.slice(1).map(decodePathSegment) } : { allowed: Object.keys(route.methods) };
      break;
    }
    if (found === undefined) return Response.json({ code: -32601, message: `No A2A v0.3 REST operation at ${c.req.method} ${base}${path}.` }, { status: 404 });

    if ('params' in found && found.params.some((p) => p === undefined)) return malformed(malformedPathMessage(`${base}${path}`));
    if (!('operation' in found)) {
      const response = malformed(`${c.req.method} is not allowed on ${base}${path}; use ${found.allowed.join(' or ')}.`, 405);
      response.headers.set('Allow', found.allowed.join(', '));
      return response;
    }
    const version = requestHeader(c, A2A_VERSION_HEADER);
    if (version !== undefined && version !== '' && !version.startsWith(`${A2A_LEGACY_PROTOCOL_VERSION}`))
      return malformed(`A2A-Version ${version} is not served at ${base}/v1 (the v0.3 HTTP+JSON binding); use the card's 1.0 HTTP+JSON interface.`);
    if (c.req.method === 'POST') {
      const contentType = requestHeader(c, 'content-type')?.split(';', 1)[0]?.trim().toLowerCase();
      if (contentType !== undefined && contentType !== 'application/json')
        return Response.json({ code: -32005, message: `Unsupported Content-Type "${contentType}"; send application/json.` }, { status: 415 });
    }
    const admitted = await authenticateA2ARequest(c, options);
    if (admitted.refusal) return admitted.refusal;
    let body: Record<string, unknown> = {};
    // v0.3 clients send `null` for bodiless POSTs (a marshalled nil).
    if (admitted.body.trim() !== '' && admitted.body.trim() !== 'null') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(admitted.body);
        checkJsonDepth(parsed);
      } catch (error) {
        return Response.json(
          { code: -32700, message: error instanceof SyntaxError ? 'Invalid JSON payload.' : `Invalid request: ${(error as Error).message}` },
          { status: 400 },
        );
      }
      if (!isPlainObject(parsed)) return malformed('The request body must be a JSON object.');
      body = parsed;
    }
    const context = callContext(c, admitted.caller, { version: A2A_LEGACY_PROTOCOL_VERSION, extensionsHeader: 'X-A2A-Extensions' });
    let send: Record<string, unknown> | undefined;
    try {
      if (found.operation === 'SendMessage' || found.operation === 'SendStreamingMessage') send = sendParamsFromProto(body);
    } catch (error) {
      return legacyError(error);
    }
    // A denial propagates to the app's error handler (403), as on the other bindings.
    await options.guard.authorize(admitted.caller, send ? messageOf({ params: send }) : found.operation);
    try {
      return await run(c, found.operation, found.params as string[], body, send, context);
    } catch (error) {
      const response = legacyError(error);
      if (response.status >= 500) logger.error('A2A v0.3 REST request failed', errorFields(error));
      return response;
    }
  });

  async function run(
    c: Context,
    operation: Operation,
    [taskId = '', configId = '']: string[],
    body: Record<string, unknown>,
    send: Record<string, unknown> | undefined,
    context: ServerCallContext,
  ): Promise<Response> {
    type Params = Parameters<LegacyRestTransportHandler['sendMessage']>[0];
    type PushConfig = Parameters<LegacyRestTransportHandler['setTaskPushNotificationConfig']>[0];
    switch (operation) {
      case 'SendMessage':
        return Response.json(eventToProto((await transport.sendMessage(send as unknown as Params, context)) as never), { status: 200 });
      case 'SendStreamingMessage':
        return stream(c, await transport.sendMessageStream(send as unknown as Params, context));
      case 'SubscribeToTask':
        return stream(c, await transport.resubscribe(taskId, context));
      case 'GetTask': {
        const query = new URL(c.req.url).searchParams;
        const historyLength = query.get('historyLength') ?? query.get('history_length') ?? undefined;
        return Response.json(taskToProto((await transport.getTask(taskId, context, historyLength)) as never));
      }
      case 'CancelTask':
        return Response.json(taskToProto((await transport.cancelTask(taskId, context)) as never));
      case 'CreateTaskPushNotificationConfig': {
        const config = taskPushConfigFromProto(body, taskId) as unknown as PushConfig;
        return Response.json(taskPushConfigToProto((await transport.setTaskPushNotificationConfig(config, context)) as never), { status: 201 });
      }
      case 'ListTaskPushNotificationConfigs': {
        const configs = await transport.listTaskPushNotificationConfigs(taskId, context);
        return Response.json({ configs: configs.map((config) => taskPushConfigToProto(config as never)), nextPageToken: '' });
      }
      case 'GetTaskPushNotificationConfig':
        return Response.json(taskPushConfigToProto((await transport.getTaskPushNotificationConfig(taskId, configId, context)) as never));
      case 'DeleteTaskPushNotificationConfig':
        await transport.deleteTaskPushNotificationConfig(taskId, configId, context);
        return new Response(null, { status: 204 });
      case 'GetExtendedAgentCard':
        return Response.json(await transport.getAuthenticatedExtendedAgentCard(context));
    }
  }

  /** SSE of proto `StreamResponse`s: an error before the first event is a REST error answer; after it, an `error` event. */
  async function stream(c: Context, events: AsyncGenerator<unknown, void, undefined>): Promise<Response> {
    const iterator = events[Symbol.asyncIterator]();
    let first: IteratorResult<unknown>;
    try {
      first = await iterator.next();
    } catch (error) {
      return legacyError(error);
    }
    async function* rest(): AsyncGenerator<{ data: unknown; failed: boolean }> {
      if (first.done) return;
      yield { data: eventToProto(first.value as Record<string, unknown>), failed: false };
      try {
        for (let next = await iterator.next(); !next.done; next = await iterator.next())
          yield { data: eventToProto(next.value as Record<string, unknown>), failed: false };
      } catch (error) {
        logger.error('A2A v0.3 REST stream failed', errorFields(error));
        yield { data: LegacyRestTransportHandler.mapToLegacyHTTPError(error), failed: true };
      }
    }
    return sseResponse(c, {
      events: rest(),
      encode: ({ data, failed }) => (failed ? { event: 'error', data: JSON.stringify(data) } : { data: JSON.stringify(data) }),
      abort: clientAbort(c),
      keepAliveMs: options.keepAliveMs,
    });
  }
}
