import type { EngineRequest, EngineResult, LlamaEngine } from './llama-engine.js';
import { withModelDefaults } from './model-defaults.js';

/** What a streamed generation produces, in order: text pieces, then one `done` or one `error`. */
export type GenerationEvent = { kind: 'text'; text: string } | { kind: 'done'; result: EngineResult } | { kind: 'error'; error: unknown };

export interface GenerationOptions {
  engine: LlamaEngine;
  request: EngineRequest;
  /** Called once the generation has ended, however it ended. */
  settled: () => void;
  /** Unload the model once this generation ends (`keep_alive: 0`). */
  unloadAfter: boolean;
}

/** Runs a generation to its end (with the model's Modelfile defaults, `withModelDefaults`). */
export function runGeneration(options: GenerationOptions): Promise<EngineResult> {
  const pending = options.engine.generate(withModelDefaults(options.engine.model, options.request));
  pending.then(options.settled, options.settled);
  if (options.unloadAfter) options.engine.unload().catch(() => undefined);
  return pending;
}

/**
 * Starts a streamed generation (with the model's Modelfile defaults) and resolves once its first text arrives or
 * it ends, so that an error found before the first token (an unsupported
 * schema, a prompt too long) rejects here and still gets a status code.
 * `next()` gives the events that follow, ending with `done` or `error`.
 */
export async function startGeneration(options: GenerationOptions): Promise<{ next(): Promise<GenerationEvent> }> {
  const events: GenerationEvent[] = [];
  let wake: (() => void) | undefined;
  const push = (event: GenerationEvent) => {
    events.push(event);
    wake?.();
  };
  let firstSettled!: () => void;
  const first = new Promise<void>((resolve) => (firstSettled = resolve));
  const onText = (text: string) => {
    if (text === '') return;
    push({ kind: 'text', text });
    firstSettled();
  };
  options.engine
    .generate({ ...withModelDefaults(options.engine.model, options.request), onText })
    .then(
      (result) => push({ kind: 'done', result }),
      (error: unknown) => push({ kind: 'error', error }),
    )
    .finally(() => {
      options.settled();
      firstSettled();
    });
  if (options.unloadAfter) options.engine.unload().catch(() => undefined);
  await first;
  const early = events[0];
  if (early?.kind === 'error') throw early.error;
  return {
    async next() {
      while (events.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      return events.shift()!;
    },
  };
}

/**
 * A response body writing what `render` makes of each event, closed after
 * `done` or `error`; a client that goes away aborts `abort` (and so the generation).
 */
export function generationBody(options: {
  events: { next(): Promise<GenerationEvent> };
  abort: AbortController;
  render: (event: GenerationEvent) => string;
}): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const event = await options.events.next();
      controller.enqueue(encoder.encode(options.render(event)));
      if (event.kind !== 'text') controller.close();
    },
    cancel() {
      options.abort.abort(new Error('client disconnected'));
    },
  });
}

/** The message of an error met while streaming. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
