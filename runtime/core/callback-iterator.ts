/**
 * An async iterator that can also hand its next result to two callbacks
 * instead of a promise. A consumer that knows it (the SSE pump) skips the
 * promise and the promise job of every layer: a small front-door answer
 * made three of them per event. The callbacks may be called before
 * `nextInto` returns (a finished or failed run); one `nextInto` (or `next`)
 * at a time.
 */
export interface CallbackIterator<T> {
  nextInto(onResult: (result: IteratorResult<T, undefined>) => void, onError: (error: unknown) => void): void;
}

/** True when `iterator` offers {@link CallbackIterator.nextInto}. */
export function isCallbackIterator<T>(iterator: AsyncIterator<T>): iterator is AsyncIterator<T> & CallbackIterator<T> {
  return typeof (iterator as Partial<CallbackIterator<T>>).nextInto === 'function';
}
