import { AbortedError } from './errors/aborted-error.js';

const NEVER = new AbortController().signal;

/** A signal that never fires, for calls made without one. */
export function neverAborted(): AbortSignal {
  return NEVER;
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortedError({ cause: signal.reason });
}

/**
 * Resolves to `promise`'s value, or rejects with `AbortedError` as soon as
 * `signal` fires, whichever comes first. The listener is removed either way.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new AbortedError({ cause: signal.reason }));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortedError({ cause: signal.reason }));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
