import type { CallbackIterator } from '../core/callback-iterator.js';

/** One event of a JSON-RPC stream as it is sent: the answer, and whether it is the stream's error. */
export interface RpcStreamEvent {
  answer: unknown;
  failed: boolean;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * The events of a JSON-RPC stream once its first result is known: `first`
 * (when there is one), then, if `rest` is given, each answer `rest` yields,
 * and, if `rest` fails, the event `failure` makes of its error, last. One
 * `then` per event and none of an async generator's own promises (three
 * more per event, each also running the tracing context manager's hooks
 * while tracing is on); the SSE pump takes the events through `nextInto`.
 * As the generator it replaces, `return()` ends the stream without closing
 * `rest` (the request's abort stops the work behind it).
 */
export class RpcEventStream implements AsyncIterableIterator<RpcStreamEvent, undefined>, CallbackIterator<RpcStreamEvent> {
  #first: RpcStreamEvent | undefined;
  readonly #rest: AsyncIterator<unknown> | undefined;
  readonly #failure: (error: unknown) => RpcStreamEvent;
  #done = false;

  constructor(options: { first?: RpcStreamEvent; rest?: AsyncIterator<unknown>; failure: (error: unknown) => RpcStreamEvent }) {
    this.#first = options.first;
    this.#rest = options.rest;
    this.#failure = options.failure;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<RpcStreamEvent, undefined>> {
    return new Promise((resolve, reject) => this.nextInto(resolve, reject));
  }

  nextInto(onResult: (result: IteratorResult<RpcStreamEvent, undefined>) => void, _onError: (error: unknown) => void): void {
    const first = this.#first;
    if (first !== undefined) {
      this.#first = undefined;
      if (this.#rest === undefined) this.#done = true;
      onResult({ done: false, value: first });
      return;
    }
    const rest = this.#rest;
    if (this.#done || rest === undefined) {
      this.#done = true;
      onResult(DONE);
      return;
    }
    // A result that comes after `return()` still goes to the `next` that asked for it, as a generator's would.
    let pending: Promise<IteratorResult<unknown>>;
    try {
      pending = rest.next();
    } catch (error) {
      this.#fail(error, onResult);
      return;
    }
    pending.then(
      (next) => {
        if (next.done) {
          this.#done = true;
          onResult(DONE);
        } else onResult({ done: false, value: { answer: next.value, failed: false } });
      },
      (error: unknown) => this.#fail(error, onResult),
    );
  }

  return(): Promise<IteratorResult<RpcStreamEvent, undefined>> {
    this.#done = true;
    this.#first = undefined;
    return Promise.resolve(DONE);
  }

  /** `rest` failed: its error as the last event (also to a `next` pending when `return()` came, as a generator's). */
  #fail(error: unknown, onResult: (result: IteratorResult<RpcStreamEvent, undefined>) => void): void {
    this.#done = true;
    onResult({ done: false, value: this.#failure(error) });
  }
}
