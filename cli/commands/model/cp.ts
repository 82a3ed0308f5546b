import { Args } from '@oclif/core';
import { JsonCommand } from '../../json-command.js';
import { failWithModelError, hostFlag, modelServerClient } from '../../model-server-command.js';

export default class ModelCp extends JsonCommand {
  static override description =
    'Copy a model under a new name on the running model server (POST /api/copy), as `ollama cp` does: the weights are shared, the system prompt and parameters copied.';

  static override examples = ['<%= config.bin %> model cp smollm2 my-smollm2', '<%= config.bin %> model cp smollm2 smollm2:backup --json'];

  static override enableJsonFlag = true;

  static override args = {
    source: Args.string({ description: 'model to copy', required: true, ignoreStdin: true }),
    destination: Args.string({ description: 'new name', required: true, ignoreStdin: true }),
  };

  static override flags = { host: hostFlag };

  async run(): Promise<{ source: string; destination: string }> {
    const { args, flags } = await this.parse(ModelCp);
    try {
      await (await modelServerClient(flags.host)).copy(args.source, args.destination);
    } catch (error) {
      failWithModelError(this, error);
    }
    this.log(`copied '${args.source}' to '${args.destination}'`);
    return { source: args.source, destination: args.destination };
  }
}
