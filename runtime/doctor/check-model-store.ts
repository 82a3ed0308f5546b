import { ModelStore, resolveModelsDir } from '../model/model-store.js';
import { checkResult, type DoctorCheck } from './doctor-check.js';
import { absentModels, expectedModels, pullCommand } from './expected-models.js';

/**
 * The local model store (FRAMEWORK_MODELS_DIR, default
 * ~/.cache/framework_core/models): which models are pulled, and a `warn`
 * naming the pull command for an expected one that is not. Not required:
 * a separate Ollama may serve the models instead.
 */
export async function checkModelStore(options: { env: NodeJS.ProcessEnv }): Promise<DoctorCheck> {
  const store = new ModelStore({ dir: resolveModelsDir({ env: options.env }) });
  const names = (await store.list()).map((m) => m.name);
  const pulled = names.length === 0 ? 'no models pulled' : `pulled: ${names.join(', ')}`;
  const absent = absentModels(expectedModels(options.env), names);
  if (absent.length === 0) return checkResult('model store', 'ok', `${store.dir}: ${pulled}`, { required: false });
  return checkResult('model store', 'warn', `${store.dir}: ${pulled}; ${absent.join(' and ')} not pulled`, { fix: pullCommand(absent), required: false });
}
