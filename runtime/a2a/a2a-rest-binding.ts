import {
  A2A_CONTENT_TYPE,
  AgentCard,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  taskStateFromJSON,
  type ListTasksRequest,
  type Message,
} from '@a2a-js/sdk';
import { RequestMalformedError, ContentTypeNotSupportedError, UnsupportedOperationError, restStatusFor, toRestErrorBody } from '@a2a-js/sdk/errors';
import { validateVersion, type A2ARequestHandler, type ServerCallContext } from '@a2a-js/sdk/server';
import type { Context, Hono } from 'hono';
import { isPlainObject } from '../core/json.js';
import { errorFields, silentLogger, type Logger } from '../core/logger.js';
import { clientAbort, requestHeader } from '../core/server/node-bindings.js';
import { decodePathSegment, malformedPathMessage } from '../core/server/path-segment.js';
import { checkJsonDepth } from '../core/server/read-json-body.js';
import { sseResponse } from '../core/server/sse-response.js';
import { authenticateA2ARequest, callContext, messageOf } from './a2a-admission.js';
import { A2A_REST_BINDING } from './agent-card.js';
import type { A2ARequestGuard } from './request-guard.js';

export interface RestBindingOptions {
  /** Path the REST routes live under, such as `/rest` (from the card's HTTP+JSON interface). */
  basePath: string;
  card: AgentCard;
  requestHandler: A2ARequestHandler;
  guard: A2ARequestGuard;
  maxBodyBytes: number;
  logger?: Logger;
  keepAliveMs?: number;
}

/** The A2A operations of the HTTP+JSON binding, by the JSON-RPC method name that does the same. */
type Operation =
  | 'SendMessage'
  | 'SendStreamingMessage'
  | 'GetTask'
  | 'ListTasks'
  | 'CancelTask'
  | 'SubscribeToTask'
  | 'CreateTaskPushNotificationConfig'
  | 'ListTaskPushNotificationConfigs'
  | 'GetTaskPushNotificationConfig'
  | 'DeleteTaskPushNotificationConfig'
  | 'GetExtendedAgentCard';

/** The binding's URL table (A2A spec, HTTP+JSON): path pattern → operation per method. */
const ROUTES: ReadonlyArray<{ pattern: RegExp; methods: Partial<Record<string, Operation>> }> = [
  { pattern: /^\/message:send$/, methods: { POST: 'SendMessage' } },
  { pattern: /^\/message:stream$/, methods: { POST: 'SendStreamingMessage' } },
  { pattern: /^\/tasks$/, methods: { GET: 'ListTasks' } },
  { pattern: /^\/tasks\/([^/:]+)$/, methods: { GET: 'GetTask' } },
  { pattern: /^\/tasks\/([^/:]+):cancel$/, methods: { POST: 'CancelTask' } },
  { pattern: /^\/tasks\/([^/:]+):subscribe$/, methods: { GET: 'SubscribeToTask', POST: 'SubscribeToTask' } },
  {
    pattern: /^\/tasks\/([^/:]+)\/pushNotificationConfigs$/,
    methods: { POST: 'CreateTaskPushNotificationConfig', GET: 'ListTaskPushNotificationConfigs' },
  },
  {
    pattern: /^\/tasks\/([^/:]+)\/pushNotificationConfigs\/([^/:]+)$/,
    methods: { GET: 'GetTaskPushNotificationConfig', DELETE: 'DeleteTaskPushNotificationConfig' },
  },
  { pattern: /^\/extendedAgentCard$/, methods: { GET: 'GetExtendedAgentCard' } },
];

interface Matched {
  operation: Operation;
  params: string[];
  tenant: string;
}

/** Finds the route of `path` (relative to the base): without a tenant first, then with its first segment as the tenant. */
function match(method: string, path: string): Matched | { allowed: string[] } | { malformed: true } | undefined {
  for (const [tenant, rest] of candidates(path)) {
    for (const route of ROUTES) {
      const found = route.pattern.exec(rest);
      if (!found) continue;
      const operation = route.methods[method];
      if (!operation) return { allowed: Object.keys(route.methods) };
      const params = found.slice(1).map(decodePathSegment);
      if (tenant === undefined || params.some((p) => p === undefined)) return { malformed: true };
      return { operation, params: params as string[], tenant };
    }
  }
  return undefined;
}

/** The path without a tenant, then with its first segment as the tenant (undefined when that segment's encoding is malformed). */
function candidates(path: string): Array<[tenant: string | undefined, rest: string]> {
  const out: Array<[string | undefined, string]> = [['', path]];
  const tenanted = /^\/([^/:]+)(\/.+)$/.exec(path);
  if (tenanted?.[1] && tenanted[2]) out.push([decodePathSegment(tenanted[1]), tenanted[2]]);
  return out;
}

/** A REST error answer in the SDK's shape (google.rpc.Status-like `{ error: { code, status, message, details } }`). */
function restError(error: unknown, status?: number): Response {
  const code = status ?? restStatusFor(error);
  return Response.json(toRestErrorBody(error, code), { status: code });
}

/** A REST answer: `application/json`, as the HTTP+JSON binding requires (requests may be `application/a2a+json` too). */
function restJson(body: unknown, status = 200): Response {
  return Response.json(body, { status });
}

/**
 * Mounts the A2A HTTP+JSON (REST) binding under `basePath` on `app`: the
 * spec's URL table (`POST /message:send`, `POST /message:stream` (SSE),
 * `GET /tasks/{id}`, `GET /tasks`, `POST /tasks/{id}:cancel`,
 * `GET|POST /tasks/{id}:subscribe`, push-notification configs under
 * `/tasks/{id}/pushNotificationConfigs`, `GET /extendedAgentCard`), each
 * also under a leading `/{tenant}`. Every request passes the same guard as
 * JSON-RPC (signature, then policy over the message text, or the
 * operation's JSON-RPC method name for non-send operations, so a policy
 * sees the same input whatever the binding) before the SDK's request
 * handler runs it. Errors use the SDK's REST error body and status.
 */
export function mountRestBinding(app: Hono, options: RestBindingOptions): void {
  const logger = options.logger ?? silentLogger;
  const base = options.basePath.replace(/\/+$/, '');
  const handler = async (c: Context): Promise<Response> => {
    const path = new URL(c.req.url).pathname.slice(base.length) || '/';
    const found = match(c.req.method, path);
    if (found === undefined) return restError(new UnsupportedOperationError(`No A2A REST operation at ${c.req.method} ${base}${path}.`), 404);
    if ('malformed' in found) return restError(new RequestMalformedError(malformedPathMessage(`${base}${path}`)), 400);
    if (!('operation' in found)) {
      const response = restError(new UnsupportedOperationError(`${c.req.method} is not allowed on ${base}${path}; use ${found.allowed.join(' or ')}.`), 405);
      response.headers.set('Allow', found.allowed.join(', '));
      return response;
    }
    if (c.req.method === 'POST') {
      const contentType = requestHeader(c, 'content-type')?.split(';', 1)[0]?.trim().toLowerCase();
      if (contentType !== undefined && contentType !== 'application/json' && contentType !== A2A_CONTENT_TYPE)
        return restError(new ContentTypeNotSupportedError(`Unsupported Content-Type "${contentType}"; send application/json or application/a2a+json.`), 415);
    }
    const admitted = await authenticateA2ARequest(c, options);
    if (admitted.refusal) return admitted.refusal;
    let body: unknown = {};
    if (admitted.body.trim() !== '') {
      try {
        body = JSON.parse(admitted.body);
        checkJsonDepth(body);
      } catch (error) {
        return restError(new RequestMalformedError(error instanceof SyntaxError ? 'Invalid JSON payload.' : `Invalid request: ${(error as Error).message}`));
      }
      if (!isPlainObject(body)) return restError(new RequestMalformedError('The request body must be a JSON object.'));
    }
    await options.guard.authorize(admitted.caller, policyText(found.operation, body));
    const context = callContext(c, admitted.caller, { tenant: found.tenant });
    try {
      validateVersion(context.requestedVersion, options.card, A2A_REST_BINDING);
      return await run(c, found, body as Record<string, unknown>, context);
    } catch (error) {
      if (restStatusFor(error) >= 500) logger.error('A2A REST request failed', errorFields(error));
      return restError(error);
    }
  };
  app.all(base === '' ? '/*' : `${base}/*`, handler);

  async function run(c: Context, found: Matched, body: Record<string, unknown>, context: ServerCallContext): Promise<Response> {
    const rh = options.requestHandler;
    const tenant = found.tenant;
    const [taskId = '', configId = ''] = found.params;
    const query = new URL(c.req.url).searchParams;
    switch (found.operation) {
      case 'SendMessage': {
        const request = sendRequest(body, tenant);
        const result = await rh.sendMessage(request, context);
        const payload = 'messageId' in result ? { $case: 'message' as const, value: result as Message } : { $case: 'task' as const, value: result as Task };
        return restJson(SendMessageResponse.toJSON({ payload }));
      }
      case 'SendStreamingMessage':
        return stream(c, rh.sendMessageStream(sendRequest(body, tenant), context));
      case 'SubscribeToTask':
        return stream(c, rh.resubscribe({ id: taskId, tenant }, context));
      case 'GetTask': {
        const historyLength = nonNegativeInt(query.get('historyLength'), 'historyLength');
        return restJson(Task.toJSON(await rh.getTask({ id: taskId, tenant, ...(historyLength === undefined ? {} : { historyLength }) }, context)));
      }
      case 'CancelTask':
        return restJson(Task.toJSON(await rh.cancelTask({ id: taskId, tenant, metadata: {} }, context)));
      case 'ListTasks': {
        const result = await rh.listTasks(listRequest(query, tenant), context);
        const includeArtifacts = query.get('includeArtifacts') === 'true';
        const json = ListTasksResponse.toJSON(result) as { tasks?: Array<Record<string, unknown>> };
        const tasks = (json.tasks ?? []).map((task) => (includeArtifacts ? { artifacts: [], ...task } : task));
        return restJson({ nextPageToken: '', pageSize: 0, totalSize: 0, ...json, tasks });
      }
      case 'CreateTaskPushNotificationConfig': {
        const config = TaskPushNotificationConfig.fromJSON({ ...body, taskId, tenant });
        return restJson(TaskPushNotificationConfig.toJSON(await rh.createTaskPushNotificationConfig(config, context)), 201);
      }
      case 'ListTaskPushNotificationConfigs': {
        const result = await rh.listTaskPushNotificationConfigs({ taskId, tenant, pageSize: 0, pageToken: '' }, context);
        return restJson(ListTaskPushNotificationConfigsResponse.toJSON(result));
      }
      case 'GetTaskPushNotificationConfig':
        return restJson(TaskPushNotificationConfig.toJSON(await rh.getTaskPushNotificationConfig({ taskId, id: configId, tenant }, context)));
      case 'DeleteTaskPushNotificationConfig':
        await rh.deleteTaskPushNotificationConfig({ taskId, id: configId, tenant }, context);
        // google.protobuf.Empty as `{}` (the Python SDK's client parses a body; the JS client ignores it).
        return restJson({});
      case 'GetExtendedAgentCard':
        return restJson(AgentCard.toJSON(await rh.getAuthenticatedExtendedAgentCard({ tenant }, context)));
    }
  }

  /** A stream as SSE: errors before the first event are a REST error answer; after it, an `error` event. */
  async function stream(c: Context, events: AsyncGenerator<StreamResponse, void, undefined>): Promise<Response> {
    const iterator = events[Symbol.asyncIterator]();
    const first = await iterator.next();
    async function* rest(): AsyncGenerator<{ data: unknown; failed: boolean }> {
      if (first.done) return;
      yield { data: StreamResponse.toJSON(first.value), failed: false };
      try {
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield { data: StreamResponse.toJSON(next.value), failed: false };
      } catch (error) {
        logger.error('A2A REST stream failed', errorFields(error));
        yield { data: toRestErrorBody(error, restStatusFor(error)), failed: true };
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

/** What the policy sees of a REST request: the message text for a send, the JSON-RPC method name otherwise (as on JSON-RPC). */
function policyText(operation: Operation, body: unknown): string {
  if (operation === 'SendMessage' || operation === 'SendStreamingMessage') return messageOf({ method: operation, params: body });
  return operation;
}

function sendRequest(body: Record<string, unknown>, tenant: string): SendMessageRequest {
  const request = SendMessageRequest.fromJSON({ ...body, ...(tenant ? { tenant } : {}) });
  if (!request.message) throw new RequestMalformedError('message is required');
  if (!request.message.messageId) throw new RequestMalformedError('message.messageId is required');
  return request;
}

function listRequest(query: URLSearchParams, tenant: string): ListTasksRequest {
  const status = query.get('status');
  const pageSize = query.get('pageSize');
  const historyLength = nonNegativeInt(query.get('historyLength'), 'historyLength');
  let size: number | undefined;
  if (pageSize !== null && pageSize !== '') {
    size = Number(pageSize);
    if (!Number.isInteger(size) || size < 1 || size > 100) throw new RequestMalformedError('pageSize must be an integer between 1 and 100');
  }
  return {
    tenant: tenant || query.get('tenant') || '',
    contextId: query.get('contextId') ?? '',
    status: status ? taskStateFromJSON(Number.isNaN(Number(status)) ? status : Number(status)) : 0,
    pageSize: size,
    pageToken: query.get('pageToken') ?? '',
    historyLength,
    statusTimestampAfter: query.get('statusTimestampAfter') || undefined,
    includeArtifacts: query.get('includeArtifacts') === 'true',
  };
}

function nonNegativeInt(value: string | null, name: string): number | undefined {
  if (value === null || value === '') return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new RequestMalformedError(`${name} must be a non-negative integer`);
  return parsed;
}
