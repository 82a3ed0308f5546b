import { Flags } from '@oclif/core';
import { JsonCommand } from '../../../json-command.js';
import { FrameworkError } from '../../../../runtime/core/framework-error.js';
import { installLlamaRuntime, LLAMA_CPP_VERSION, LLAMA_GPUS, type LlamaRuntimeInstall } from '../../../../runtime/model/llama-runtime.js';

export default class ModelRuntimeInstall extends JsonCommand {
  static override description = `Install the local model runtime (node-llama-cpp ${LLAMA_CPP_VERSION}) with only this platform's CPU build of llama.cpp, into FRAMEWORK_RUNTIMES_DIR (default ~/.cache/framework_core/runtimes) through npm and its configured registry. --gpu adds the CUDA or Vulkan build, which the model server uses when FRAMEWORK_LLAMA_GPU names it. Does nothing when it is already there. A project's npm install runs it (its postinstall).`;

  static override examples = ['<%= config.bin %> model runtime install', '<%= config.bin %> model runtime install --gpu vulkan --json'];

  static override enableJsonFlag = true;

  static override flags = {
    gpu: Flags.string({ description: 'also install a GPU build of llama.cpp (then set FRAMEWORK_LLAMA_GPU to the same name)', options: [...LLAMA_GPUS] }),
  };

  async run(): Promise<LlamaRuntimeInstall> {
    const { flags } = await this.parse(ModelRuntimeInstall);
    try {
      const gpu = flags.gpu as (typeof LLAMA_GPUS)[number] | undefined;
      if (!this.jsonEnabled()) this.log(`Installing node-llama-cpp ${LLAMA_CPP_VERSION} (llama.cpp ${gpu ? `CPU and ${gpu}` : 'CPU'} build)…`);
      const result = await installLlamaRuntime(gpu ? { gpu } : {});
      this.log(`${result.installed ? 'Installed' : 'Already installed:'} node-llama-cpp ${result.version} with ${result.packages.join(', ')} in ${result.dir}`);
      if (gpu) this.log(`The model server uses the ${gpu} build when started with FRAMEWORK_LLAMA_GPU=${gpu}.`);
      return result;
    } catch (error) {
      if (FrameworkError.isInstance(error)) this.error(error.message, { exit: error.code === 'invalid_arguments' ? 2 : 1, code: error.code });
      throw error;
    }
  }
}
