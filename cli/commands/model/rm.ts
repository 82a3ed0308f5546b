import { Args } from '@oclif/core';
import { JsonCommand } from '../../json-command.js';
import { failWithModelError, hostFlag, modelServerClient } from '../../model-server-command.js';

export default class ModelRm extends JsonCommand {
  static override description =
    "Remove models from the running model server's store (DELETE /api/delete), as `ollama rm` does: a loaded model is unloaded first, and weights another model uses stay.";

  static override examples = ['<%= config.bin %> model rm my-model', '<%= config.bin %> model rm a b --json'];

  static override enableJsonFlag = true;

  static override strict = false;

  static override args = { name: Args.string({ description: 'model name (several may be given)', required: true, ignoreStdin: true }) };

  static override flags = { host: hostFlag };

  async run(): Promise<{ deleted: string[] }> {
    const { argv, flags } = await this.parse(ModelRm);
    const client = await modelServerClient(flags.host);
    const deleted: string[] = [];
    for (const name of argv as string[]) {
      try {
        await client.delete(name);
      } catch (error) {
        failWithModelError(this, error);
      }
      deleted.push(name);
      this.log(`deleted '${name}'`);
    }
    return { deleted };
  }
}
