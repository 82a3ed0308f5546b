import * as Flags from '@oclif/core/flags';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import type { RunningModelServer } from '../../runtime/model/start-model-server.js';
import { parseAddr, serveUntilStopped, type ServeIo } from '../serve-until-stopped.js';
import type { Interfaces } from '@oclif/core';

/** The flags of `model serve` (its command and its lean start share them). */
export const modelServeFlags = {
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

/** The body of `model serve` once its flags are parsed: starts the service and serves until stopped. */
export async function serveModels(io: ServeIo, flags: Interfaces.InferredFlags<typeof modelServeFlags>): Promise<{ url: string; stopped: true }> {
  // Loaded once the arguments are known good: a mistyped flag does not wait for it.
  const [{ startModelServer }, { createLogger }, { ModelStore, resolveModelsDir }] = await Promise.all([
    import('../../runtime/model/start-model-server.js'),
    import('../../runtime/core/logger.js'),
    import('../../runtime/model/model-store.js'),
  ]);
  const addr = parseAddr(flags.addr);
  if (!addr) io.error(`--addr ${JSON.stringify(flags.addr)} is not host:port (for example 127.0.0.1:11434).`, { exit: 2 });
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
    if (FrameworkError.isInstance(error)) io.error(error.message, { exit: 1, code: error.code });
    throw error;
  }
  return serveUntilStopped(io, running, `Model server listening on ${running.url} (models from ${store.dir})`);
}
