import { resolve } from 'node:path';
import { modelTag } from './known-models.js';
import type { StoredModel } from './model-store.js';
import { parametersText } from './model-parameters.js';
import { renderModelfile } from './modelfile.js';

/** `details` of `/api/tags`, `/api/ps` and `/api/show`. */
export function modelDetails(m: StoredModel) {
  return {
    parent_model: m.parent ?? '',
    format: m.kind === 'embedding' ? 'safetensors' : 'gguf',
    family: m.family ?? '',
    families: m.family ? [m.family] : [],
    parameter_size: m.parameterSize ?? '',
    quantization_level: m.quantization ?? '',
  };
}

/**
 * Ollama's `/api/show` answer for a stored model: its Modelfile (FROM the
 * absolute path of the weights, which `model pull` from another store reads),
 * the parameters text, template, system, license, messages, details,
 * model_info and capabilities.
 */
export function showModel(m: StoredModel) {
  const path = resolve(m.path);
  return {
    license: m.license ?? '',
    modelfile: renderModelfile({ ...m, name: modelTag(m.name), path }),
    parameters: parametersText(m.parameters),
    // Without a TEMPLATE of its own, a chat model uses its GGUF's chat template; Ollama shows `{{ .Prompt }}` for such a model.
    template: m.template ?? (m.kind === 'embedding' ? '' : '{{ .Prompt }}'),
    system: m.system ?? '',
    details: modelDetails(m),
    model_info: {
      'general.architecture': m.family ?? 'unknown',
      'general.file_type': m.quantization ?? '',
      ...(m.parameterSize ? { 'general.size_label': m.parameterSize } : {}),
      ...(m.embeddingLength === undefined ? {} : { [`${m.family ?? 'unknown'}.embedding_length`]: m.embeddingLength }),
    },
    ...(m.messages?.length ? { messages: m.messages } : {}),
    capabilities: m.kind === 'embedding' ? ['embedding'] : ['completion', 'tools'],
    modified_at: m.modifiedAt,
  };
}
