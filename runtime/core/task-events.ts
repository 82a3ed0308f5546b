import type { AbortSource } from './abort.js';
import { isCallbackIterator, type CallbackIterator } from './callback-iterator.js';
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
export function runTaskForTransport(request: TaskRunRequest): AsyncIterableIterator<AgentResponse, undefined> {
  return new TransportRun(request);
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/** {@link runTaskForTransport}'s iterator: one callback per event over the task's run, no generator. */
class TransportRun implements AsyncIterableIterator<AgentResponse, undefined>, CallbackIterator<AgentResponse> {
  readonly #request: TaskRunRequest;
  #run: AsyncIterator<AgentResponse> | undefined;
  #done = false;
  /** The callbacks of the `nextInto` under way. */
  #onResult: ((result: IteratorResult<AgentResponse, undefined>) => void) | undefined;
  #onError: ((error: unknown) => void) | undefined;

  constructor(request: TaskRunRequest) {
    this.#request = request;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<AgentResponse, undefined>> {
    return new Promise((resolve, reject) => this.nextInto(resolve, reject));
  }

  nextInto(onResult: (result: IteratorResult<AgentResponse, undefined>) => void, onError: (error: unknown) => void): void {
    if (this.#done) {
      onResult(DONE);
      return;
    }
    let run = this.#run;
    if (!run) {
      const request = this.#request;
      try {
        run = this.#run = request.core.openTask(request.task ?? request.core.entryTask, {
          query: request.query,
          contextId: request.contextId,
          oneShot: request.oneShot ?? false,
          ...(request.approvalsOff === undefined ? {} : { approvalsOff: request.approvalsOff }),
          abort: request.abort,
        });
      } catch (error) {
        this.#onResult = onResult;
        this.#onError = onError;
        this.#failed(error);
        return;
      }
    }
    this.#onResult = onResult;
    this.#onError = onError;
    if (isCallbackIterator(run)) run.nextInto(this.#result, this.#failed);
    else run.next().then(this.#result, this.#failed);
  }

  return(): Promise<IteratorResult<AgentResponse, undefined>> {
    this.#done = true;
    const run = this.#run;
    // As a generator's return(): settled once the run has closed (its span ended, with tracing).
    return run?.return
      ? run.return().then(
          () => DONE,
          () => DONE,
        )
      : Promise.resolve(DONE);
  }

  readonly #result = (result: IteratorResult<AgentResponse, unknown>): void => {
    const onResult = this.#settle();
    if (result.done) {
      this.#done = true;
      onResult?.(DONE);
    } else onResult?.(result);
  };

  /** A failure becomes the last response; an abort ends the stream quietly. */
  readonly #failed = (error: unknown): void => {
    const onError = this.#onError;
    const onResult = this.#settle();
    this.#done = true;
    let last: IteratorResult<AgentResponse, undefined>;
    try {
      last = this.#lastResponse(error);
    } catch (thrown) {
      onError?.(thrown);
      return;
    }
    onResult?.(last);
  };

  /** The callback of the `nextInto` under way, which is then over. */
  #settle(): ((result: IteratorResult<AgentResponse, undefined>) => void) | undefined {
    const onResult = this.#onResult;
    this.#onResult = undefined;
    this.#onError = undefined;
    return onResult;
  }

  #lastResponse(error: unknown): IteratorResult<AgentResponse, undefined> {
    const request = this.#request;
    if (request.abort.aborted || (FrameworkError.isInstance(error) && error instanceof AbortedError)) return DONE;
    if (!FrameworkError.isInstance(error)) request.logger.error('task failed', errorFields(error));
    const { code, message } = toPublicError(error);
    return { done: false, value: AgentResponse.error(message, { code }) };
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
