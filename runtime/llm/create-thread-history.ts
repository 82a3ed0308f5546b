import { loadSessionConfig, type AgentConfig, type Env } from '../core/config.js';
import { ConfigError } from '../core/errors/config-error.js';
import { KvThreadHistory } from './kv-thread-history.js';
import { InProcessThreadHistory } from './in-process-thread-history.js';
import type { ThreadHistory } from './thread-history.js';

export type ThreadHistoryConfig = Pick<AgentConfig, 'sessionBackend' | 'sessionKvUrl' | 'llmHistoryMessages'> & Partial<Pick<AgentConfig, 'kvKeyPrefix'>>;

/**
 * Builds the thread memory the configuration asks for: in-process for
 * `memory`, Redis at `sessionKvUrl` for `kv`, keeping `llmHistoryMessages`
 * per thread. The caller owns it and closes it.
 *
 * @example
 * const memory = createThreadHistory(loadAgentConfig());
 * setDefaultThreadHistory(memory);
 */
export function createThreadHistory(config: ThreadHistoryConfig): ThreadHistory {
  if (config.sessionBackend === 'kv') {
    if (!config.sessionKvUrl) {
      throw new ConfigError({
        issues: [{ variable: 'SESSION_KV_URL', message: 'is required when SESSION_BACKEND=kv (or set KV_URL)' }],
        context: 'Invalid thread memory configuration',
      });
    }
    return new KvThreadHistory({
      url: config.sessionKvUrl,
      maxMessages: config.llmHistoryMessages,
      ...(config.kvKeyPrefix === undefined ? {} : { keyPrefix: config.kvKeyPrefix }),
    });
  }
  return new InProcessThreadHistory({ maxMessages: config.llmHistoryMessages });
}

/**
 * The thread-memory settings from the environment: `SESSION_BACKEND`,
 * `SESSION_KV_URL` (falling back to `KV_URL`), `KV_PREFIX` and `LLM_HISTORY_MESSAGES`,
 * validated like `loadAgentConfig` does but without needing `AGENT_NAME`.
 */
export function readThreadHistoryConfig(env: Env = process.env): ThreadHistoryConfig {
  const { sessionBackend, sessionKvUrl, llmHistoryMessages, kvKeyPrefix } = loadSessionConfig({ env });
  return { sessionBackend, sessionKvUrl, llmHistoryMessages, kvKeyPrefix };
}

let defaultMemory: ThreadHistory | undefined;
/** True when `defaultMemory` was built here (and so is ours to close). */
let builtHere = false;

/**
 * The thread memory `invoke` uses when none is passed. Built from the
 * environment at first use (not at import), then shared by the process.
 * A bad environment throws `ConfigError` naming the variables.
 */
export function getDefaultThreadHistory(): ThreadHistory {
  if (!defaultMemory) {
    defaultMemory = createThreadHistory(readThreadHistoryConfig());
    builtHere = true;
  }
  return defaultMemory;
}

/**
 * Replaces the default thread memory, for hosts that own one (an agent built
 * from `loadAgentConfig`). `undefined` goes back to building one from the
 * environment at next use. A default that was built from the environment is
 * closed when replaced; one set here stays the caller's to close.
 *
 * @example
 * setDefaultThreadHistory(createThreadHistory(config));
 */
export function setDefaultThreadHistory(memory: ThreadHistory | undefined): void {
  const previous = defaultMemory;
  if (previous && builtHere && previous !== memory) void previous.close().catch(() => {});
  defaultMemory = memory;
  builtHere = false;
}
