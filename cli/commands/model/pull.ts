import { Args, Command } from '@oclif/core';
import { FrameworkError } from '../../../runtime/core/framework-error.js';
import { KNOWN_MODELS } from '../../../runtime/model/known-models.js';
import { ModelStore, resolveModelsDir } from '../../../runtime/model/model-store.js';
import { pullModel } from '../../../runtime/model/pull-model.js';
import { PullProgressView } from '../../../runtime/model/pull-progress-view.js';

export default class ModelPull extends Command {
  static override description = `Fetch a model into the model store (FRAMEWORK_MODELS_DIR, default ~/.cache/framework_core/models) and verify its checksum. Does nothing when it is already there. Shows progress on one updating line on a terminal, plain lines otherwise. Known models: ${KNOWN_MODELS.map((m) => m.name).join(', ')}.`;

  static override examples = ['<%= config.bin %> model pull smollm2', 'FRAMEWORK_MODELS_DIR=/data/models <%= config.bin %> model pull smollm2 --json'];

  static override enableJsonFlag = true;

  static override args = {
    name: Args.string({ description: 'model name', required: true }),
  };

  async run(): Promise<{ name: string; path: string; size: number; sha256: string }> {
    const { args } = await this.parse(ModelPull);
    const store = new ModelStore({ dir: resolveModelsDir() });
    const view = new PullProgressView({ output: process.stdout, dir: store.dir });
    try {
      const model = await pullModel({
        store,
        name: args.name,
        onProgress: (p) => {
          if (!this.jsonEnabled()) view.update(p);
        },
      });
      return { name: model.name, path: model.path, size: model.size, sha256: model.sha256 };
    } catch (error) {
      view.end();
      if (FrameworkError.isInstance(error)) this.error(error.message, { exit: 1, code: error.code });
      throw error;
    }
  }
}
