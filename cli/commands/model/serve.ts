import { JsonCommand } from '../../json-command.js';
import { modelServeFlags, serveModels } from '../../serve/model.js';

export default class ModelServe extends JsonCommand {
  static override description =
    'Serve the models of the model store with the Ollama API (/api/chat, /api/generate, /api/embed, /api/tags, /api/show, /api/ps, /api/version, /api/pull, and model management: /api/create, /api/copy, /api/delete, /api/blobs; /api/push answers "not supported") and OpenAI\'s under /v1, until interrupted.';

  static override examples = [
    '<%= config.bin %> model serve',
    '<%= config.bin %> model serve --addr 127.0.0.1:11435',
    '<%= config.bin %> model serve --force-tool-call',
    '<%= config.bin %> model serve --parallel 1',
    '<%= config.bin %> model serve --threads 4',
  ];

  static override enableJsonFlag = true;

  /** `{"event":"listening"}` first, the result when stopped: one JSON document per line. */
  static override jsonLines = true;

  static override flags = modelServeFlags;

  async run(): Promise<{ url: string; stopped: true }> {
    const { flags } = await this.parse(ModelServe);
    return serveModels(this, flags);
  }
}
