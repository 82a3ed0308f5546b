import type { AbortSource } from './abort.js';
import { AgentResponse } from './agent-response.js';
import { assertNever } from './assert-never.js';
import { toPublicError } from './public-error.js';
import { AbortedError } from './errors/aborted-error.js';
import type { FrameworkCore } from './framework-core.js';
import { FrameworkError } from './framework-error.js';
import { errorFields, type Logger } from './logger.js';
import type { TaskQuery } from './task-input.js';

export interface TaskRunRequest {
  core: FrameworkCore;
  query: TaskQuery;
  contextId: string;
  /** The conversation ends with this request (anonymous or minimal front door). */
  oneShot?: boolean;
  /** Why no approval can be given in this conversation (see `TaskContext.approvalsOff`). */
  approvalsOff?: string;
  /** The client's abort (a `LazyAbortController`: the task's signal is made only if it reads it). */
  abort: AbortSource;
  logger: Logger;
  /** Task to run; the core's entry task (`route_to_task`) when omitted. */
  task?: string;
}

/**
 * Runs a task for a transport and yields its responses. It never throws: a
 * failure becomes a final `error` response (internal details go to the log,
 * not to the client). An abort ends the stream quietly.
 */
export async function* runTaskForTransport(request: TaskRunRequest): AsyncGenerator<AgentResponse, void, undefined> {
  try {
    const task = request.task ?? request.core.entryTask;
    for await (const response of request.core.executeTask(task, {
      query: request.query,
      contextId: request.contextId,
      oneShot: request.oneShot ?? false,
      ...(request.approvalsOff === undefined ? {} : { approvalsOff: request.approvalsOff }),
      abort: request.abort,
    })) {
      yield response;
    }
  } catch (error) {
    if (request.abort.aborted || (FrameworkError.isInstance(error) && error instanceof AbortedError)) return;
    if (!FrameworkError.isInstance(error)) request.logger.error('task failed', errorFields(error));
    const { code, message } = toPublicError(error);
    yield AgentResponse.error(message, { code });
  }
}

/** The JSON form of a response, as `/query` and the `json` event format carry it. */
export function responseToJson(response: AgentResponse): Record<string, unknown> {
  switch (response.type) {
    case 'status':
      return { text: response.text, ...(response.data === undefined ? {} : { data: { ...response.data } }) };
    case 'text':
      return { text: response.text };
    case 'input_required':
      return {
        text: response.text,
        ...(response.actionType === undefined ? {} : { action_type: response.actionType }),
        ...(response.data === undefined ? {} : { data: { ...response.data } }),
      };
    case 'result':
      return { ...response.data };
    case 'error':
      return { code: response.code, message: response.message };
    default:
      return assertNever(response);
  }
}
