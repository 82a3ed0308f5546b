import * as Flags from '@oclif/core/flags';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import { parseAddr, serveUntilStopped, type ServeIo } from '../serve-until-stopped.js';
import type { Interfaces } from '@oclif/core';

/** The flags of `serve semantic-layer` (its command and its lean start share them). */
export const semanticLayerFlags = {
  addr: Flags.string({ char: 'a', description: 'address to listen on, host:port (default: SEMANTIC_LAYER_HOST:SEMANTIC_LAYER_PORT, else 127.0.0.1:10100)' }),
  cards: Flags.string({ description: 'folder of agent card files (default: AGENT_CARDS_DIR, else services/semantic_layer/agent_cards)' }),
  'store-dir': Flags.string({ description: 'LanceDB folder (default: VECTOR_STORE_DIR, else .framework/semantic)' }),
};

/** The body of `serve semantic-layer` once its flags are parsed: starts the service and serves until stopped. */
export async function serveSemanticLayer(io: ServeIo, flags: Interfaces.InferredFlags<typeof semanticLayerFlags>): Promise<{ url: string; stopped: true }> {
  // Loaded once the arguments are known good: a mistyped flag does not wait for it.
  const [{ startSemanticLayer }, { createLogger }, { loadSemanticConfig }] = await Promise.all([
    import('../../runtime/semantic/start-semantic-layer.js'),
    import('../../runtime/core/logger.js'),
    import('../../runtime/semantic/semantic-config.js'),
  ]);
  let addr: { host: string; port: number } | undefined;
  if (flags.addr !== undefined) {
    addr = parseAddr(flags.addr);
    if (!addr) io.error(`--addr ${JSON.stringify(flags.addr)} is not host:port (for example 127.0.0.1:10100).`, { exit: 2 });
  }
  let layer;
  try {
    const config = loadSemanticConfig({
      env: process.env,
      overrides: {
        ...(addr ? { SEMANTIC_LAYER_HOST: addr.host, SEMANTIC_LAYER_PORT: String(addr.port) } : {}),
        ...(flags.cards ? { AGENT_CARDS_DIR: flags.cards } : {}),
        ...(flags['store-dir'] ? { VECTOR_STORE_DIR: flags['store-dir'] } : {}),
      },
    });
    layer = await startSemanticLayer({ config, logger: createLogger({ name: 'semantic-layer', level: config.logLevel }) });
  } catch (error) {
    if (FrameworkError.isInstance(error)) io.error(error.message, { exit: 1, code: error.code });
    throw error;
  }
  return serveUntilStopped(io, layer, `Semantic Layer listening on ${layer.mcpUrl} (health: ${layer.url}/health)`);
}
