import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { isPlainObject } from '../core/json.js';

/**
 * Converters between the A2A v0.3 HTTP+JSON (REST) wire form, which is the
 * proto3 JSON of the 0.3 `a2a.proto` (`SendMessageRequest { message,
 * configuration }`, `Message.content`, untagged `Part`s, `ROLE_USER`,
 * `TASK_STATE_CANCELLED`, `StreamResponse { task | message | statusUpdate |
 * artifactUpdate }`, push configs named `tasks/{id}/pushNotificationConfigs/{id}`),
 * and the v0.3 JSON-RPC objects the SDK's `LegacyRestTransportHandler`
 * takes and returns (`kind`-tagged, lower-case states). The SDK converts
 * these forms inside its Express router but does not export the converters.
 * Input accepts proto field names in lowerCamelCase or snake_case (proto3
 * JSON parsers take both); output is lowerCamelCase.
 */

type Json = Record<string, unknown>;

const STATE_TO_PROTO: Record<string, string> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
  canceled: 'TASK_STATE_CANCELLED',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  rejected: 'TASK_STATE_REJECTED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  unknown: 'TASK_STATE_UNSPECIFIED',
};

/** `snake_case` or `lowerCamelCase` member of a proto-JSON object. */
function field(object: Json, camel: string): unknown {
  if (camel in object) return object[camel];
  const snake = camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return object[snake];
}

function object(value: unknown, what: string): Json {
  if (!isPlainObject(value)) throw new RequestMalformedError(`${what} must be a JSON object.`);
  return value;
}

function optionalString(value: unknown, what: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new RequestMalformedError(`${what} must be a string.`);
  return value;
}

function list(value: unknown, what: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new RequestMalformedError(`${what} must be an array.`);
  return value;
}

/** Drops `undefined` members, so the SDK sees absent fields as absent. */
function compact(value: Json): Json {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

function partFromProto(value: unknown, at: string): Json {
  const part = object(value, at);
  const text = field(part, 'text');
  if (typeof text === 'string') return { kind: 'text', text };
  const file = field(part, 'file');
  if (file !== undefined) {
    const f = object(file, `${at}.file`);
    const uri = optionalString(field(f, 'fileWithUri'), `${at}.file.fileWithUri`);
    const bytes = optionalString(field(f, 'fileWithBytes'), `${at}.file.fileWithBytes`);
    if ((uri === undefined) === (bytes === undefined)) throw new RequestMalformedError(`${at}.file needs one of fileWithUri or fileWithBytes.`);
    const mimeType = optionalString(field(f, 'mimeType'), `${at}.file.mimeType`);
    return { kind: 'file', file: compact({ ...(uri ? { uri } : { bytes }), mimeType }) };
  }
  const data = field(part, 'data');
  if (data !== undefined) return { kind: 'data', data: object(field(object(data, `${at}.data`), 'data') ?? {}, `${at}.data.data`) };
  throw new RequestMalformedError(`${at} must have text, file or data.`);
}

function partToProto(part: Json): Json {
  if (part.kind === 'text') return { text: part.text };
  if (part.kind === 'file') {
    const file = part.file as Json;
    return { file: compact({ ...('uri' in file ? { fileWithUri: file.uri } : { fileWithBytes: file.bytes }), mimeType: file.mimeType }) };
  }
  return { data: { data: part.data } };
}

/** A v0.3 proto-JSON `Message` → the v0.3 JSON-RPC `Message`. */
export function messageFromProto(value: unknown, at = 'message'): Json {
  const message = object(value, at);
  const role = field(message, 'role');
  if (role !== 'ROLE_USER' && role !== 'ROLE_AGENT' && role !== 'user' && role !== 'agent')
    throw new RequestMalformedError(`${at}.role must be ROLE_USER or ROLE_AGENT.`);
  const messageId = optionalString(field(message, 'messageId'), `${at}.messageId`);
  const parts = list(field(message, 'content') ?? field(message, 'parts'), `${at}.content`).map((p, i) => partFromProto(p, `${at}.content[${i}]`));
  return compact({
    kind: 'message',
    messageId: messageId ?? '',
    role: role === 'ROLE_USER' || role === 'user' ? 'user' : 'agent',
    parts,
    contextId: optionalString(field(message, 'contextId'), `${at}.contextId`),
    taskId: optionalString(field(message, 'taskId'), `${at}.taskId`),
    metadata: field(message, 'metadata') === undefined ? undefined : object(field(message, 'metadata'), `${at}.metadata`),
    extensions: field(message, 'extensions') === undefined ? undefined : list(field(message, 'extensions'), `${at}.extensions`),
  });
}

function pushConfigFromProto(value: unknown, at: string): Json {
  const config = object(value, at);
  const url = optionalString(field(config, 'url'), `${at}.url`);
  if (url === undefined) throw new RequestMalformedError(`${at}.url is required.`);
  const auth = field(config, 'authentication');
  return compact({
    id: optionalString(field(config, 'id'), `${at}.id`),
    url,
    token: optionalString(field(config, 'token'), `${at}.token`),
    authentication:
      auth === undefined
        ? undefined
        : compact({
            schemes: list(field(object(auth, `${at}.authentication`), 'schemes'), `${at}.authentication.schemes`),
            credentials: optionalString(field(auth as Json, 'credentials'), `${at}.authentication.credentials`),
          }),
  });
}

/** The body of `POST /v1/message:send|stream` (proto `SendMessageRequest`) → v0.3 `MessageSendParams`. */
export function sendParamsFromProto(body: Json): Json {
  const message = field(body, 'message') ?? field(body, 'request');
  if (message === undefined) throw new RequestMalformedError('message is required.');
  const configuration = field(body, 'configuration');
  let config: Json | undefined;
  if (configuration !== undefined) {
    const c = object(configuration, 'configuration');
    const push = field(c, 'pushNotification') ?? field(c, 'pushNotificationConfig');
    const historyLength = field(c, 'historyLength');
    if (historyLength !== undefined && typeof historyLength !== 'number') throw new RequestMalformedError('configuration.historyLength must be a number.');
    const blocking = field(c, 'blocking');
    config = compact({
      acceptedOutputModes:
        field(c, 'acceptedOutputModes') === undefined ? undefined : list(field(c, 'acceptedOutputModes'), 'configuration.acceptedOutputModes'),
      historyLength,
      blocking: blocking === undefined ? undefined : blocking === true,
      pushNotificationConfig: push === undefined ? undefined : pushConfigFromProto(push, 'configuration.pushNotification'),
    });
  }
  const metadata = field(body, 'metadata');
  return compact({ message: messageFromProto(message), configuration: config, metadata: metadata === undefined ? undefined : object(metadata, 'metadata') });
}

/** The body of `POST /v1/tasks/{id}/pushNotificationConfigs` (proto `TaskPushNotificationConfig`, or a bare config) → v0.3 `TaskPushNotificationConfig`. */
export function taskPushConfigFromProto(body: Json, taskId: string): Json {
  const inner = field(body, 'pushNotificationConfig') ?? field(body, 'config');
  const config =
    inner === undefined ? body : isPlainObject(inner) && field(inner, 'pushNotificationConfig') !== undefined ? field(inner, 'pushNotificationConfig') : inner;
  return { taskId, pushNotificationConfig: pushConfigFromProto(config, 'pushNotificationConfig') };
}

export function messageToProto(message: Json): Json {
  return compact({
    messageId: message.messageId,
    contextId: message.contextId,
    taskId: message.taskId,
    role: message.role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT',
    content: ((message.parts as Json[] | undefined) ?? []).map(partToProto),
    metadata: message.metadata,
    extensions: message.extensions,
  });
}

function statusToProto(status: Json): Json {
  return compact({
    state: STATE_TO_PROTO[String(status.state)] ?? 'TASK_STATE_UNSPECIFIED',
    message: status.message ? messageToProto(status.message as Json) : undefined,
    timestamp: status.timestamp,
  });
}

function artifactToProto(artifact: Json): Json {
  return compact({
    artifactId: artifact.artifactId,
    name: artifact.name,
    description: artifact.description,
    parts: ((artifact.parts as Json[] | undefined) ?? []).map(partToProto),
    metadata: artifact.metadata,
    extensions: artifact.extensions,
  });
}

export function taskToProto(task: Json): Json {
  return compact({
    id: task.id,
    contextId: task.contextId,
    status: statusToProto((task.status as Json | undefined) ?? { state: 'unknown' }),
    artifacts: ((task.artifacts as Json[] | undefined) ?? []).map(artifactToProto),
    history: ((task.history as Json[] | undefined) ?? []).map(messageToProto),
    metadata: task.metadata,
  });
}

/** A v0.3 send result or stream event → proto `SendMessageResponse` / `StreamResponse` JSON. */
export function eventToProto(event: Json): Json {
  switch (event.kind) {
    case 'task':
      return { task: taskToProto(event) };
    case 'message':
      return { message: messageToProto(event) };
    case 'status-update':
      return {
        statusUpdate: compact({
          taskId: event.taskId,
          contextId: event.contextId,
          status: statusToProto(event.status as Json),
          final: event.final === true,
          metadata: event.metadata,
        }),
      };
    case 'artifact-update':
      return {
        artifactUpdate: compact({
          taskId: event.taskId,
          contextId: event.contextId,
          artifact: artifactToProto(event.artifact as Json),
          append: event.append === true,
          lastChunk: event.lastChunk === true,
          metadata: event.metadata,
        }),
      };
    default:
      throw new Error(`unknown v0.3 event kind ${String(event.kind)}`);
  }
}

/** A v0.3 `TaskPushNotificationConfig` → proto JSON (`name: tasks/{id}/pushNotificationConfigs/{id}`). */
export function taskPushConfigToProto(config: Json): Json {
  const push = config.pushNotificationConfig as Json;
  return {
    name: `tasks/${String(config.taskId)}/pushNotificationConfigs/${String(push.id ?? '')}`,
    pushNotificationConfig: compact({ id: push.id, url: push.url, token: push.token, authentication: push.authentication }),
  };
}
