import {
  Role,
  TaskState,
  type CancelTaskRequest,
  type GetTaskPushNotificationConfigRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { RequestMalformedError, TaskNotCancelableError } from '@a2a-js/sdk/errors';
import { DefaultRequestHandler, type ServerCallContext } from '@a2a-js/sdk/server';
import { redactPushConfig } from './push/redact-push-config.js';

/** RFC 3339 date-time (a protobuf `Timestamp` in JSON), the form `statusTimestampAfter` takes. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * The SDK's request handler with the parameter checks the A2A spec asks for
 * and the SDK leaves out, so every binding (JSON-RPC 1.0 and 0.3, REST)
 * refuses them the same way, as invalid params (-32602, HTTP 400):
 * `historyLength` must be a non-negative integer (spec "Validation Error
 * Example": "Must be non-negative integer"); `statusTimestampAfter` must be
 * an RFC 3339 timestamp (the SDK accepts anything `Date.parse` reads, so
 * `"-1"` listed every task as if it were year -1); a message must have an
 * id, a role and at least one part (all three REQUIRED in 1.0 `Message`;
 * 0.3 `parts` is "an array of content parts that form the message body";
 * the SDK took `[]` and made a task of nothing, and ran a message without a
 * role as ROLE_UNSPECIFIED); cancelling a task already cancelled is
 * TaskNotCancelableError like any terminal task (both specs' error table:
 * "already reached a terminal state like completed, failed, or canceled";
 * the SDK answered the cancelled task again). Push configs come back with
 * their webhook secrets redacted (`redactPushConfig`): the `token` and
 * `authentication.credentials` are write-only, on every binding (the SDK
 * returned them in clear to anyone who could list a task's configs).
 */
export class CheckedRequestHandler extends DefaultRequestHandler {
  override sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    checkMessage(params);
    return super.sendMessage(params, context);
  }

  /**
   * The SDK's stream itself, not one more generator around it (each event paid an extra generator step, several
   * promises); a refused message fails the stream when it is first read, as it did from inside a generator.
   */
  override sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    try {
      checkMessage(params);
    } catch (error) {
      return failedStream(error);
    }
    return super.sendMessageStream(params, context);
  }

  override async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    const task = await super.getTask({ id: params.id, tenant: params.tenant, historyLength: 0 }, context);
    if (task.status?.state === TaskState.TASK_STATE_CANCELED) throw new TaskNotCancelableError(`Task ${params.id} is already canceled.`);
    return super.cancelTask(params, context);
  }

  override getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    checkHistoryLength(params.historyLength);
    return super.getTask(params, context);
  }

  override listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    checkHistoryLength(params.historyLength);
    const after = params.statusTimestampAfter;
    if (after !== undefined && after !== '' && (!RFC3339.test(after) || Number.isNaN(Date.parse(after))))
      throw new RequestMalformedError(`statusTimestampAfter must be an RFC 3339 timestamp such as "2026-01-31T09:30:00Z" (got ${JSON.stringify(after)}).`);
    return super.listTasks(params, context);
  }

  override async createTaskPushNotificationConfig(params: TaskPushNotificationConfig, context: ServerCallContext): Promise<TaskPushNotificationConfig> {
    return redactPushConfig(await super.createTaskPushNotificationConfig(params, context));
  }

  override async getTaskPushNotificationConfig(params: GetTaskPushNotificationConfigRequest, context: ServerCallContext): Promise<TaskPushNotificationConfig> {
    return redactPushConfig(await super.getTaskPushNotificationConfig(params, context));
  }

  override async listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    const listed = await super.listTaskPushNotificationConfigs(params, context);
    return { ...listed, configs: listed.configs.map(redactPushConfig) };
  }
}

/** A stream whose first read fails with `error`. */
// eslint-disable-next-line require-yield
async function* failedStream(error: unknown): AsyncGenerator<StreamResponse, void, undefined> {
  throw error;
}

function checkHistoryLength(historyLength: number | undefined): void {
  if (historyLength !== undefined && !(Number.isInteger(historyLength) && historyLength >= 0))
    throw new RequestMalformedError(`historyLength must be a non-negative integer (got ${String(historyLength)}).`);
}

function checkMessage(params: SendMessageRequest): void {
  // A missing message is the SDK's own error; a message without the fields every message must have is ours to refuse
  // (1.0 `Message`: messageId, role and parts are REQUIRED; 0.3 the same). The SDK reads an absent role as
  // ROLE_UNSPECIFIED and an absent messageId as "", and ran both.
  const message = params.message;
  if (!message) return;
  if (!message.messageId) throw new RequestMalformedError('message.messageId is required: a unique id for this message, e.g. a UUID.');
  if (message.role !== Role.ROLE_USER && message.role !== Role.ROLE_AGENT)
    throw new RequestMalformedError('message.role is required: ROLE_USER (v0.3: "user") or ROLE_AGENT ("agent").');
  if (message.parts.length === 0) throw new RequestMalformedError('message.parts must hold at least one part (text, data, file or url); got an empty array.');
}
