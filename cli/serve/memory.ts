import { resolve } from 'node:path';
import * as Flags from '@oclif/core/flags';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import type { MemoryConfig } from '../../runtime/memory/memory-config.js';
import { parseAddr, serveUntilStopped, type ServeIo } from '../serve-until-stopped.js';
import type { Interfaces } from '@oclif/core';

/** The flags of `serve memory` (its command and its lean start share them). */
export const memoryFlags = {
  addr: Flags.string({ char: 'a', description: 'address to listen on, host:port (default: MEMORY_HOST:MEMORY_PORT, else 127.0.0.1:8000)' }),
  'kv-url': Flags.string({ description: 'Redis holding the memories (default: KV_URL, else redis://127.0.0.1:6379)' }),
  'ollama-host': Flags.string({ description: 'model runtime that embeds, Ollama API (default: OLLAMA_HOST, else http://127.0.0.1:11434)' }),
};

/** The body of `serve memory` once its flags are parsed: starts the service and serves until stopped. */
export async function serveMemory(io: ServeIo, flags: Interfaces.InferredFlags<typeof memoryFlags>): Promise<{ url: string; stopped: true }> {
  // Loaded once the arguments are known good: a mistyped flag does not wait for it.
  const [{ startMemoryService }, { redactUrl }, { createLogger }, { loadMemoryConfig }, { projectKeyPrefix, projectRootOf }] = await Promise.all([
    import('../../runtime/memory/start-memory-service.js'),
    import('../../runtime/core/kv-client.js'),
    import('../../runtime/core/logger.js'),
    import('../../runtime/memory/memory-config.js'),
    import('../../runtime/supervisor/project-key-prefix.js'),
  ]);
  if (flags['kv-url'] !== undefined && !hasProtocol(flags['kv-url'], ['redis:', 'rediss:'])) {
    io.error(`--kv-url ${JSON.stringify(flags['kv-url'])} is not a redis:// URL (for example redis://127.0.0.1:6379).`, { exit: 2 });
  }
  if (flags['ollama-host'] !== undefined && !hasProtocol(flags['ollama-host'], ['http:', 'https:'])) {
    io.error(`--ollama-host ${JSON.stringify(flags['ollama-host'])} is not an http(s) URL (for example http://127.0.0.1:11434).`, { exit: 2 });
  }
  let addr: { host: string; port: number } | undefined;
  if (flags.addr !== undefined) {
    addr = parseAddr(flags.addr);
    if (!addr) io.error(`--addr ${JSON.stringify(flags.addr)} is not host:port (for example 127.0.0.1:8000).`, { exit: 2 });
  }
  let config: MemoryConfig;
  try {
    config = loadMemoryConfig({ env: process.env });
  } catch (error) {
    if (FrameworkError.isInstance(error)) io.error(error.message, { exit: 1, code: error.code });
    throw error;
  }
  const kvUrl = flags['kv-url'] ?? config.kvUrl;
  // In a project folder the default prefix is the project's own (as `up` gives it), so projects sharing a Redis stay apart.
  const root = process.env.KV_PREFIX ? undefined : projectRootOf(process.cwd());
  const ollamaHost = flags['ollama-host'] ?? config.ollamaHost;
  let service;
  try {
    service = await startMemoryService({
      host: addr?.host ?? config.host,
      port: addr?.port ?? config.port,
      kvUrl,
      ollamaHost,
      ...(root === undefined ? {} : { keyPrefix: projectKeyPrefix({ root }) }),
      // The copy of the long-term memories is saved under the project for a fast restart (issue 23).
      indexDir: resolve(config.indexDir ?? MEMORY_INDEX_DIR_DEFAULT),
      logger: createLogger({ name: 'memory', level: config.logLevel }),
    });
  } catch (error) {
    if (FrameworkError.isInstance(error)) io.error(error.message, { exit: 1, code: error.code });
    throw error;
  }
  return serveUntilStopped(
    io,
    service,
    `Memory service listening on ${service.url}, over ${redactUrl(kvUrl)}, embedding with ${config.embeddingModel} at ${ollamaHost}`,
  );
}

/** Where `serve memory` saves the long-term memories' in-process copy unless MEMORY_INDEX_DIR says otherwise. */
const MEMORY_INDEX_DIR_DEFAULT = '.framework/memory';

function hasProtocol(value: string, protocols: readonly string[]): boolean {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}
