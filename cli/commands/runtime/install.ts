import { Flags } from '@oclif/core';
import { JsonCommand } from '../../json-command.js';
import { FrameworkError } from '../../../runtime/core/framework-error.js';
import { installNativeRuntime, LLAMA_GPUS, NATIVE_PACKAGES, type LlamaGpu, type NativeRuntimeInstall } from '../../../runtime/core/native-runtime.js';

const PINNED = Object.entries(NATIVE_PACKAGES)
  .map(([pkg, version]) => `${pkg} ${version}`)
  .join(' and ');

export default class RuntimeInstall extends JsonCommand {
  static override description = `Install the native parts the toolkit loads on use: ${PINNED} (the local model runtime and the Semantic Layer's vector store), with only this platform's builds (llama.cpp's CPU build), into FRAMEWORK_RUNTIMES_DIR (default ~/.cache/framework_core/runtimes), through npm and its configured registry. --gpu adds llama.cpp's CUDA or Vulkan build, which the model server uses when FRAMEWORK_LLAMA_GPU names it. Does nothing when it is all there. A generated project's npm install runs it (its postinstall).`;

  static override examples = ['<%= config.bin %> runtime install', '<%= config.bin %> runtime install --gpu vulkan --json'];

  static override enableJsonFlag = true;

  static override flags = {
    gpu: Flags.string({
      description: 'also install a GPU build of llama.cpp (then run the model server with FRAMEWORK_LLAMA_GPU set to the same name)',
      options: [...LLAMA_GPUS],
    }),
  };

  async run(): Promise<NativeRuntimeInstall> {
    const { flags } = await this.parse(RuntimeInstall);
    const gpu = flags.gpu as LlamaGpu | undefined;
    try {
      if (!this.jsonEnabled()) this.log(`Installing ${PINNED} (llama.cpp ${gpu ? `CPU and ${gpu}` : 'CPU'} build)…`);
      const result = await installNativeRuntime(gpu ? { gpu } : {});
      const packages = Object.entries(result.packages).map(([pkg, version]) => `${pkg}@${version}`);
      this.log(`${result.installed ? 'Installed' : 'Already installed:'} ${packages.join(', ')} in ${result.dir}`);
      if (gpu) this.log(`The model server uses the ${gpu} build when started with FRAMEWORK_LLAMA_GPU=${gpu}.`);
      return result;
    } catch (error) {
      if (FrameworkError.isInstance(error)) this.error(error.message, { exit: error.code === 'invalid_arguments' ? 2 : 1, code: error.code });
      throw error;
    }
  }
}
