import type { Logger } from '../core/logger.js';
import { listen, type Listening } from '../core/server/listen.js';
import { createModelServer } from './create-model-server.js';
import type { ModelStore } from './model-store.js';

export interface RunningModelServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serves the models of `store` with Ollama's API on `host:port` (port 0
 * picks a free one); `close()` stops listening and unloads the models.
 *
 * @example
 * const server = await startModelServer({ store, host: '127.0.0.1', port: 11434 });
 */
export async function startModelServer(options: {
  store: ModelStore;
  host: string;
  port: number;
  logger?: Logger;
  /** Requests that may wait for a free sequence; default 16. */
  maxQueue?: number;
  /** Requests generated at once per chat model; default `OLLAMA_NUM_PARALLEL`, then 2. */
  numParallel?: number;
  /** CPU threads per chat model, whatever the load; default: the cores other processes leave free. */
  threads?: number;
  /** Keep-alive of a request without `keep_alive`; default `OLLAMA_KEEP_ALIVE`, then 5 minutes. */
  keepAlive?: string | number;
  /** On `/api/chat`, answer a user message that comes with tools with a call to one of them (see `ModelServerOptions.forceToolCall`). */
  forceToolCall?: boolean;
}): Promise<RunningModelServer> {
  const { host: _host, port: _port, ...serverOptions } = options;
  const server = createModelServer(serverOptions);
  let listening: Listening;
  try {
    listening = await listen(server.app, { host: options.host, port: options.port, portHint: 'for example --addr 127.0.0.1:11435' });
  } catch (error) {
    await server.close();
    throw error;
  }
  return {
    url: listening.url,
    port: listening.port,
    close: async () => {
      await listening.close();
      await server.close();
    },
  };
}
