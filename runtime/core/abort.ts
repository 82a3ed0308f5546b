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
  // The shared never-firing signal would collect a listener per concurrent call (Node warns past 10) for nothing.
  if (!signal || signal === NEVER) return promise;
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

/**
 * What a task run listens to for its end: the state of an abort, the
 * `AbortSignal` to hand to code that wants one, and a cheap listener.
 */
export interface AbortSource {
  readonly aborted: boolean;
  readonly reason: unknown;
  readonly signal: AbortSignal;
  /** Calls `listener` once, when the abort happens; returns what removes it. */
  onAbort(listener: (reason: unknown) => void): () => void;
}

/** The sources behind signals, so a signal handed on is listened to as cheaply as its source. */
const sourceOfSignal = new WeakMap<AbortSignal, AbortSource>();

/**
 * An AbortController whose `AbortSignal` is made only when someone reads
 * `signal`. In Node 20 making a signal and listening to it costs about
 * 10 µs, more than the rest of a small front-door request; the hot paths
 * listen with `onAbort` instead, and a task that never reads its signal
 * never pays for one.
 */
export class LazyAbortController implements AbortSource {
  // Even the controller is made on demand: `new AbortController()` makes its signal too.
  #controller: AbortController | undefined;
  #listeners: Array<(reason: unknown) => void> | undefined;
  #aborted = false;
  #reason: unknown;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  get signal(): AbortSignal {
    let controller = this.#controller;
    if (!controller) {
      controller = this.#controller = new AbortController();
      if (this.#aborted) controller.abort(this.#reason);
      sourceOfSignal.set(controller.signal, this);
    }
    return controller.signal;
  }

  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    this.#controller?.abort(reason);
    if (listeners) for (const listener of listeners) listener(reason);
  }

  onAbort(listener: (reason: unknown) => void): () => void {
    (this.#listeners ??= []).push(listener);
    return () => {
      const listeners = this.#listeners;
      const at = listeners?.indexOf(listener) ?? -1;
      if (listeners && at >= 0) listeners.splice(at, 1);
    };
  }
}

/** An `AbortSource` over a plain signal (listened to with `addEventListener`). */
class SignalAbortSource implements AbortSource {
  constructor(readonly signal: AbortSignal) {}

  get aborted(): boolean {
    return this.signal.aborted;
  }

  get reason(): unknown {
    return this.signal.reason;
  }

  onAbort(listener: (reason: unknown) => void): () => void {
    const onAbort = () => listener(this.signal.reason);
    this.signal.addEventListener('abort', onAbort, { once: true });
    return () => this.signal.removeEventListener('abort', onAbort);
  }
}

const NEVER_SOURCE: AbortSource = { aborted: false, reason: undefined, signal: NEVER, onAbort: () => () => {} };
sourceOfSignal.set(NEVER, NEVER_SOURCE);

/** The `AbortSource` of a signal: its `LazyAbortController` when it has one, else one listening to the signal. */
export function abortSourceOf(signal: AbortSignal): AbortSource {
  return sourceOfSignal.get(signal) ?? new SignalAbortSource(signal);
}
