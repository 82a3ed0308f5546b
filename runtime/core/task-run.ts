import type { AbortSource } from './abort.js';
import { AgentResponse } from './agent-response.js';
import type { CallbackIterator } from './callback-iterator.js';
import { AbortedError } from './errors/aborted-error.js';
import { FrameworkError } from './framework-error.js';

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * What a run reports to (the task's span, with tracing): the task's work
 * runs through `call` (so the span is current in it), and `end` hears once
 * how the run ended: with `{ error }` when it failed.
 */
export interface RunScope {
  call<R>(work: () => R): R;
  end(failure?: { error: unknown }): void;
}

/**
 * One run of a task's generator, as an async iterator written by hand: each
 * `next()` is one wait on the task (rejected by the abort), one check that
 * the task yielded an `AgentResponse`, and nothing else. An async generator
 * in its place costs several promises and microtasks per event, a fair part
 * of a small front-door request; `nextInto` (a {@link CallbackIterator})
 * skips even the one promise of `next()`. One `next()` at a time, as
 * `for await` does.
 *
 * When the run stops early (abort, error, `return()`), the task's generator
 * is closed without waiting for it: a task stuck in a non-abortable await
 * must not hold the caller.
 */
export class TaskRun implements AsyncIterableIterator<AgentResponse, undefined>, CallbackIterator<AgentResponse> {
  readonly #task: string;
  readonly #iterator: AsyncIterator<AgentResponse>;
  readonly #abort: AbortSource;
  readonly #release: (() => void) | undefined;
  readonly #scope: RunScope | undefined;
  readonly #removeListener: () => void;
  #resolve: ((result: IteratorResult<AgentResponse, undefined>) => void) | undefined;
  #reject: ((error: unknown) => void) | undefined;
  #closed = false;
  #finished = false;

  constructor(options: {
    task: string;
    iterator: AsyncIterator<AgentResponse>;
    abort: AbortSource;
    release: (() => void) | undefined;
    scope?: RunScope | undefined;
  }) {
    this.#task = options.task;
    this.#scope = options.scope;
    this.#iterator = options.iterator;
    this.#abort = options.abort;
    this.#release = options.release;
    // One abort listener for the whole run (not one per event): it rejects the wait for the
    // task's next response, so an abort ends the wait even when the task ignores the signal.
    this.#removeListener = options.abort.onAbort((reason) => this.#fail(new AbortedError({ cause: reason })));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<AgentResponse, undefined>> {
    return new Promise((resolve, reject) => this.nextInto(resolve, reject));
  }

  nextInto(onResult: (result: IteratorResult<AgentResponse, undefined>) => void, onError: (error: unknown) => void): void {
    if (this.#closed) {
      onResult(DONE);
      return;
    }
    if (this.#resolve) {
      onError(new TypeError('TaskRun.next() called while a response is still awaited'));
      return;
    }
    if (this.#abort.aborted) {
      const error = new AbortedError({ cause: this.#abort.reason });
      this.#close(error);
      onError(error);
      return;
    }
    this.#resolve = onResult;
    this.#reject = onError;
    (this.#scope ? this.#scope.call(this.#nextOfTask) : this.#iterator.next()).then(this.#onNext, this.#onError);
  }

  return(): Promise<IteratorResult<AgentResponse, undefined>> {
    this.#close();
    return Promise.resolve(DONE);
  }

  throw(error: unknown): Promise<IteratorResult<AgentResponse, undefined>> {
    this.#close(error);
    return Promise.reject(error);
  }

  readonly #nextOfTask = (): Promise<IteratorResult<AgentResponse, unknown>> => this.#iterator.next();

  readonly #onNext = (result: IteratorResult<AgentResponse, unknown>): void => {
    const resolve = this.#resolve;
    if (!resolve || this.#closed) return;
    if (result.done) {
      this.#finished = true;
      this.#close();
      resolve(DONE);
      return;
    }
    if (!AgentResponse.is(result.value)) {
      this.#fail(
        new FrameworkError({
          code: 'internal_error',
          message: `Task '${this.#task}' yielded something that is not an AgentResponse; use AgentResponse.status/result/text/inputRequired/error`,
        }),
      );
      return;
    }
    this.#resolve = undefined;
    this.#reject = undefined;
    resolve(result);
  };

  readonly #onError = (error: unknown): void => {
    // The task threw: it is over, nothing to close.
    if (this.#resolve) this.#finished = true;
    this.#fail(error);
  };

  /** Ends the run with `error` for the caller waiting on `next()`, if any. */
  #fail(error: unknown): void {
    const reject = this.#reject;
    if (!reject || this.#closed) return;
    this.#close(error);
    reject(error);
  }

  /** Ends the run (failed with `error`, when given) and closes the task unless it finished. */
  #close(...failure: [error: unknown] | []): void {
    this.#resolve = undefined;
    this.#reject = undefined;
    if (this.#closed) return;
    this.#closed = true;
    this.#scope?.end(failure.length === 0 ? undefined : { error: failure[0] });
    this.#release?.();
    this.#removeListener();
    if (!this.#finished) void Promise.resolve(this.#iterator.return?.()).catch(() => undefined);
  }
}
