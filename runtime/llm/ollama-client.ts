import type * as OllamaModule from 'ollama';

let loading: Promise<typeof OllamaModule> | undefined;

/**
 * The official `ollama` client's module, imported by the first call that
 * talks to a model runtime. Importing it imports its fetch polyfill
 * (`whatwg-fetch`), which reads Node's `Headers` and with it loads Node's
 * whole fetch implementation: about 3 MB of the idle memory of a service that
 * has not embedded or chatted yet (issue 40; `test/cli/idle-dependencies.test.ts`).
 *
 * @example
 * const { Ollama } = await ollamaModule();
 */
export function ollamaModule(): Promise<typeof OllamaModule> {
  return (loading ??= import('ollama'));
}
