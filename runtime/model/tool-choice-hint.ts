import { findKnownModel } from './known-models.js';

/**
 * What to tell a person whose agent has tools and runs on a model too small to
 * choose them (the default SmolLM2-135M: on its own it calls none; with the
 * server's choice step, the right tool for 5 of 10 prompts that need one,
 * `bench/model-tools.ts`): its tools will often not be called and it will
 * answer in text, with the fix. Undefined for any other model.
 *
 * @example
 * toolChoiceHint({ model: 'smollm2' }); // 'The model smollm2 (SmolLM2-135M) is too small to choose tools reliably: …'
 */
export function toolChoiceHint(options: { model: string | undefined; agent?: string }): string | undefined {
  const known = options.model === undefined ? undefined : findKnownModel(options.model);
  if (!known?.choosesNoTools) return undefined;
  const who = options.agent ? `agent "${options.agent}"` : 'an agent';
  return (
    `The model ${known.name} (${known.file.replace(/\.[^.]*\.gguf$/, '').replace(/-Instruct$/, '')}) is too small to choose tools reliably (the right tool for 5 of 10 prompts that need one): with it, ${who} often answers in text without calling its tools (tools.ts). ` +
    'For tool calls, set MODEL_NAME to a tool-capable model served by Ollama (OLLAMA_HOST), or make one from a GGUF file with `framework-cli model create <name> -f Modelfile` (FROM ./model.gguf).'
  );
}

/** The hint for the first agent of a stack that runs on such a model (its `MODEL_NAME`), or undefined. */
export function stackToolChoiceHint(services: ReadonlyArray<{ name: string; kind: string; env?: Readonly<Record<string, string>> }>): string | undefined {
  const agents = services.filter((s) => s.kind === 'agent' && toolChoiceHint({ model: s.env?.MODEL_NAME }) !== undefined);
  if (agents.length === 0) return undefined;
  const names = agents.map((s) => `"${s.name}"`).join(', ');
  return toolChoiceHint({ model: agents[0]!.env?.MODEL_NAME })!.replace(
    /an agent often answers/,
    `agent${agents.length > 1 ? 's' : ''} ${names} often answer${agents.length > 1 ? '' : 's'}`,
  );
}
