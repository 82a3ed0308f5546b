import type { EngineMessage, EngineOptions, EngineRequest } from './llama-engine.js';
import type { ModelManifest } from './model-store.js';
import type { OllamaOptions } from './ollama-wire.js';

const ENGINE_OPTION_KEYS = [
  'temperature',
  'num_predict',
  'num_ctx',
  'seed',
  'top_k',
  'top_p',
  'min_p',
  'repeat_penalty',
  'repeat_last_n',
  'presence_penalty',
  'frequency_penalty',
] as const satisfies ReadonlyArray<Exclude<keyof EngineOptions, 'stop'>>;

/** The options of an Ollama request (or a model's parameters) that the engine acts on; the others are accepted and ignored. */
export function engineOptions(options: OllamaOptions | Record<string, unknown> | undefined): EngineOptions {
  if (!options) return {};
  const picked: EngineOptions = {};
  for (const key of ENGINE_OPTION_KEYS) {
    const value = options[key];
    if (typeof value === 'number') picked[key] = value;
  }
  const stop = options.stop;
  if (typeof stop === 'string') picked.stop = [stop];
  else if (Array.isArray(stop) && stop.every((s) => typeof s === 'string')) picked.stop = stop;
  return picked;
}

/**
 * A request with its model's Modelfile defaults, as Ollama applies them:
 * the model's parameters under the request's own options (a request option
 * wins), the model's MESSAGE lines before the request's messages, and its
 * SYSTEM as the first message when the request has no system message.
 * A `raw` request gets the parameters only.
 */
export function withModelDefaults(model: Pick<ModelManifest, 'parameters' | 'system' | 'messages'>, request: EngineRequest): EngineRequest {
  const defaults = engineOptions(model.parameters);
  const options = { ...defaults, ...request.options };
  if (request.raw) return { ...request, options };
  const preset: EngineMessage[] = (model.messages ?? []).map((m) => ({ role: m.role, content: m.content }));
  const hasSystem = request.messages.some((m) => m.role === 'system') || preset.some((m) => m.role === 'system');
  const system: EngineMessage[] = model.system && !hasSystem ? [{ role: 'system', content: model.system }] : [];
  return { ...request, options, messages: [...system, ...preset, ...request.messages] };
}
