import { Flags } from '@oclif/core';
import { JsonCommand } from '../../json-command.js';
import { FrameworkError } from '../../../runtime/core/framework-error.js';
import type { RunningModelServer } from '../../../runtime/model/start-model-server.js';
import { parseAddr, serveUntilStopped } from '../../serve-until-stopped.js';

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

  static override flags = {
    addr: Flags.string({ char: 'a', description: 'address to listen on, host:port', default: '127.0.0.1:11434' }),
    'force-tool-call': Flags.boolean({
      description:
        'answer a user message that comes with tools with a call to one of them (for small models such as smollm2 that never call a tool on their own); /v1 requests with a tool_choice keep theirs',
      default: false,
    }),
    parallel: Flags.integer({
      description: 'requests a chat model generates at once, each in its own context sequence (default: OLLAMA_NUM_PARALLEL, then 2)',
      min: 1,
      max: 64,
    }),
    threads: Flags.integer({
      description: 'CPU threads a chat model generates with (default: the cores that other processes leave free, from the load average, up to all of them)',
      min: 1,
      max: 1024,
    }),
  };

  async run(): Promise<{ url: string; stopped: true }> {
    const { flags } = await this.parse(ModelServe);
    // Loaded once the arguments are known good: a mistyped flag does not wait for it.
    const [{ startModelServer }, { createLogger }, { ModelStore, resolveModelsDir }] = await Promise.all([
      import('../../../runtime/model/start-model-server.js'),
      import('../../../runtime/core/logger.js'),
      import('../../../runtime/model/model-store.js'),
    ]);
    const addr = parseAddr(flags.addr);
    if (!addr) this.error(`--addr ${JSON.stringify(flags.addr)} is not host:port (for example 127.0.0.1:11434).`, { exit: 2 });
    const store = new ModelStore({ dir: resolveModelsDir() });
    let running: RunningModelServer;
    try {
      running = await startModelServer({
        store,
        host: addr.host,
        port: addr.port,
        logger: createLogger({ name: 'model' }),
        ...(flags['force-tool-call'] ? { forceToolCall: true } : {}),
        ...(flags.parallel === undefined ? {} : { numParallel: flags.parallel }),
        ...(flags.threads === undefined ? {} : { threads: flags.threads }),
      });
    } catch (error) {
      if (FrameworkError.isInstance(error)) this.error(error.message, { exit: 1, code: error.code });
      throw error;
    }
    return serveUntilStopped(this, running, `Model server listening on ${running.url} (models from ${store.dir})`);
  }
}
