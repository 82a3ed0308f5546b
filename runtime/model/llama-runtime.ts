import { FrameworkError } from '../core/framework-error.js';
import { LLAMA_GPUS, loadNative, NATIVE_PACKAGES, RUNTIME_INSTALL_COMMAND, type LlamaGpu } from '../core/native-runtime.js';
import { ModelRequestError } from './model-request-error.js';

type LlamaCpp = typeof import('node-llama-cpp');

/**
 * node-llama-cpp, loaded on first use (see `loadNative`): importing the
 * toolkit neither loads nor needs it. Missing: a 503 `ModelRequestError`
 * (`model_runtime_unavailable`, answered with its status on the model
 * server's routes) naming the install command.
 */
export function loadLlamaCpp(): Promise<LlamaCpp> {
  return loadNative<LlamaCpp>(
    'node-llama-cpp',
    () =>
      new ModelRequestError({
        status: 503,
        message: `The local model runtime (node-llama-cpp ${NATIVE_PACKAGES['node-llama-cpp']}, llama.cpp's CPU build) is not installed. Install it: ${RUNTIME_INSTALL_COMMAND} (add --gpu cuda or --gpu vulkan for a GPU build).`,
      }),
  );
}

/** The GPU build the engine asks llama.cpp for: `FRAMEWORK_LLAMA_GPU` (cuda|vulkan), else none (CPU). */
export function llamaGpuFromEnv(env: NodeJS.ProcessEnv = process.env): LlamaGpu | false {
  const value = env.FRAMEWORK_LLAMA_GPU?.trim();
  if (!value || value === 'false' || value === 'cpu') return false;
  if ((LLAMA_GPUS as readonly string[]).includes(value)) return value as LlamaGpu;
  throw new FrameworkError({ code: 'invalid_config', message: `FRAMEWORK_LLAMA_GPU=${value} is not one of cpu, ${LLAMA_GPUS.join(', ')}.` });
}
