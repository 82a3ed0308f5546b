import { loadAgentConfig } from '../core/config.js';
import type { FrameworkAgent } from '../core/framework-agent.js';
import type { FrameworkCore, RunningAgent, RunOptions } from '../core/framework-core.js';
import { createLogger, type Logger } from '../core/logger.js';
import { createSessionStore } from '../sessions/create-session-store.js';
import type { SessionStore } from '../sessions/session-store.js';
import { createFrontDoor } from './front-door.js';
import { listen } from './listen.js';
import { createMinimalFrontDoor } from './minimal-front-door.js';

export interface RunAgentOptions extends RunOptions {
  core: FrameworkCore;
  agent: FrameworkAgent;
  /** A session store to use instead of the one SESSION_BACKEND selects (not closed by `close()`). */
  sessions?: SessionStore;
  logger?: Logger;
}

/**
 * Starts an agent's HTTP front door. Options win over the environment:
 * `port` over AGENT_PORT, `host` over AGENT_HOST; the agent's name over
 * AGENT_NAME. Configuration errors name every bad variable at once.
 */
export async function runAgent(options: RunAgentOptions): Promise<RunningAgent> {
  const config = loadAgentConfig({
    env: options.env ?? process.env,
    overrides: { AGENT_NAME: options.agent.agentName },
  });
  const logger = options.logger ?? createLogger({ name: config.agentName, level: config.logLevel });
  const ownsSessions = options.sessions === undefined;
  const sessions = options.sessions ?? createSessionStore(config);
  options.core.useSessions(sessions);

  const identity = {
    name: options.agent.agentName,
    version: options.agent.version,
    description: options.agent.description,
  };
  const app =
    options.mode === 'minimal'
      ? createMinimalFrontDoor({ core: options.core, logger, maxBodyBytes: config.maxBodyBytes, keepAliveMs: options.keepAliveMs })
      : createFrontDoor({
          core: options.core,
          agent: identity,
          sessions,
          logger,
          maxBodyBytes: config.maxBodyBytes,
          keepAliveMs: options.keepAliveMs,
          chatCompat: options.chatCompat ?? false,
        });

  let listening;
  try {
    listening = await listen(app, {
      host: options.host ?? config.host,
      port: options.port ?? config.agentPort,
      portHint: 'set AGENT_PORT or pass --port',
    });
  } catch (error) {
    if (ownsSessions) await sessions.close();
    throw error;
  }
  logger.info('agent listening', { url: listening.url, mode: options.mode ?? 'full', sessions: sessions.backend });
  let closing: Promise<void> | undefined;
  return {
    url: listening.url,
    port: listening.port,
    close: () =>
      (closing ??= (async () => {
        await listening.close();
        if (ownsSessions) await sessions.close();
      })()),
  };
}
