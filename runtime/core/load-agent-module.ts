import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FrameworkAgent } from './framework-agent.js';
import { FrameworkCore } from './framework-core.js';
import { FrameworkError } from './framework-error.js';

export interface AgentModule {
  core: FrameworkCore;
  agent: FrameworkAgent;
}

const SHAPE_HINT =
  'An agent module exports `core` (a FrameworkCore) and `agent` (a FrameworkAgent), or a default export that is such an object or a function returning one.';

/**
 * Loads an agent from a JavaScript module file (compiled output of a
 * project's agent), for `framework-cli serve agent --module <file>`.
 */
export async function loadAgentModule(path: string): Promise<AgentModule> {
  const absolute = resolve(path);
  if (!existsSync(absolute)) {
    throw new FrameworkError({ code: 'invalid_config', message: `Agent module ${absolute} does not exist.` });
  }
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
  } catch (error) {
    throw new FrameworkError({
      code: 'invalid_config',
      message: `Could not import agent module ${absolute}: ${(error as Error).message}`,
      cause: error,
    });
  }
  let candidate: unknown = loaded.core !== undefined ? loaded : loaded.default;
  if (typeof candidate === 'function') candidate = await (candidate as () => unknown)();
  const { core, agent } = (candidate ?? {}) as Partial<AgentModule>;
  if (!(core instanceof FrameworkCore) || !(agent instanceof FrameworkAgent)) {
    throw new FrameworkError({ code: 'invalid_config', message: `${absolute} is not an agent module. ${SHAPE_HINT}` });
  }
  return { core, agent };
}
