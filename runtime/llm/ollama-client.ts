import type * as OllamaModule from 'ollama';

let loading: Promise<typeof OllamaModule> | undefined;

/**
 * The official `ollama` client's module, imported by the first call that
 * talks to a model runtime. It and its fetch polyfill (`whatwg-fetch`, which
 * reads Node's `Headers` and so loads Node's fetch implementation where
 * nothing had) were about 2-3 MB of the idle memory of a service that has
 * not embedded or chatted yet: the Semantic Layer idles 2 MB lower without
 * them (issue 40; `test/cli/idle-dependencies.test.ts`).
 *
 * @example
 * const { Ollama } = await ollamaModule();
 */
export function ollamaModule(): Promise<typeof OllamaModule> {
  return (loading ??= import('ollama'));
}
