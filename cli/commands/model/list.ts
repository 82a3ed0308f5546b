import { JsonCommand } from '../../json-command.js';
import type { StoredModel } from '../../../runtime/model/model-store.js';

export default class ModelList extends JsonCommand {
  static override description = 'List the models in the model store (FRAMEWORK_MODELS_DIR, default ~/.cache/framework_core/models).';

  static override examples = ['<%= config.bin %> model list', '<%= config.bin %> model list --json'];

  static override enableJsonFlag = true;

  async run(): Promise<{ dir: string; models: StoredModel[] }> {
    await this.parse(ModelList);
    const { ModelStore, resolveModelsDir } = await import('../../model-listing.js');
    const store = new ModelStore({ dir: resolveModelsDir() });
    const models = await store.list();
    if (models.length === 0) this.log(`No models in ${store.dir}. Pull one: framework-cli model pull smollm2`);
    for (const m of models) this.log(`${m.name}\t${(m.size / 1e6).toFixed(1)} MB\t${m.quantization ?? ''}\t${m.sha256.slice(0, 12)}\t${m.path}`);
    return { dir: store.dir, models };
  }
}
