import type { AgentCard } from '@a2a-js/sdk';
import type { Hono } from 'hono';
import { createA2AServer } from '../a2a/a2a-server.js';
import { A2A_GRPC_BINDING, cardFromConfig, loadAgentCard } from '../a2a/agent-card.js';
import { AgentCardError } from '../a2a/errors/agent-card-error.js';
import { loadAgentConfig, type AgentConfig } from '../core/config.js';
import type { FrameworkAgent } from '../core/framework-agent.js';
import type { FrameworkCore } from '../core/framework-core.js';
import { createLogger, type Logger } from '../core/logger.js';
import { createSessionStore } from '../sessions/create-session-store.js';
import { flushDecisionLogs } from '../a2a/validator.js';
import type { SessionStore } from '../sessions/session-store.js';
import { createBaseApp } from '../core/server/base-app.js';
import { createFrontDoor } from '../http/front-door.js';
import { directStream } from '../http/direct-stream.js';
import { eitherDirect, listen, type Listening } from '../core/server/listen.js';
import { directStaticJson } from '../core/server/node-answer.js';
import { createMinimalFrontDoor } from '../http/minimal-front-door.js';

/** The handle of a running agent, returned by `runAgent`. */
export interface RunningAgent {
  /** Base URL of the front door, e.g. `http://127.0.0.1:8002`. */
  readonly url: string;
  readonly port: number;
  /** URL of the A2A endpoint (the card's URL), when one is served. */
  readonly a2aUrl?: string;
  /** The agent card served at `/.well-known/agent-card.json`, when an A2A endpoint is served. */
  readonly card?: AgentCard;
  close(): Promise<void>;
}

export interface RunAgentOptions {
  port?: number;
  host?: string;
  /** `full` front door (default), `minimal` tutorial front door, or `a2a`: the A2A endpoint only (an executor). */
  mode?: 'full' | 'minimal' | 'a2a';
  /** Serve the A2A endpoint (default true). */
  a2a?: boolean;
  chatCompat?: boolean;
  /** Silence after which a keep-alive comment is sent on a stream; default 15 s. */
  keepAliveMs?: number;
  env?: Readonly<Record<string, string | undefined>>;
  /** A session store to use instead of the one SESSION_BACKEND selects (not closed by `close()`). */
  sessions?: SessionStore;
  logger?: Logger;
}

/** What the helpers below need: the options plus the core and agent they run. */
interface Assembly extends RunAgentOptions {
  core: FrameworkCore;
  agent: FrameworkAgent;
}

/**
 * Starts an agent (the spec's `agent.run(<agent instance>)`): its HTTP front door and its A2A endpoint (agent card at
 * `/.well-known/agent-card.json`, JSON-RPC at the card's URL). Both share
 * AGENT_PORT unless WEB_INTERFACE_PORT gives the front door its own port;
 * mode `a2a` serves the A2A endpoint only (an executor). Options win over
 * the environment: `port` over AGENT_PORT (then the card's port), `host` over
 * AGENT_HOST, the agent's name over AGENT_NAME. Configuration errors name
 * every bad variable at once.
 *
 * @example
 * const agent = new FrameworkCore();
 * agent.task({ name: 'route_to_task' }, async function* ({ query }) { yield AgentResponse.result({ echo: query }); });
 * const running = await runAgent(agent, new FrameworkAgent({ agentName: 'echo', description: 'Echoes' }), { port: 8002 });
 */
export async function runAgent(core: FrameworkCore, agent: FrameworkAgent, runOptions: RunAgentOptions = {}): Promise<RunningAgent> {
  const options: Assembly = { ...runOptions, core, agent };
  const env = options.env ?? process.env;
  const config = loadAgentConfig({ env, overrides: { AGENT_NAME: options.agent.agentName } });
  const logger = options.logger ?? createLogger({ name: config.agentName, level: config.logLevel });
  const host = options.host ?? config.host;
  const card = await agentCard(options, config, host);
  const port = options.port ?? (env.AGENT_PORT ? config.agentPort : (cardPort(card) ?? config.agentPort));
  const ownsSessions = options.sessions === undefined;
  const sessions = options.sessions ?? createSessionStore(config);
  options.core.useSessions(sessions);

  const opened: { close(): Promise<void> }[] = [];
  // Closed last: decisions made in process (A2A_DECISIONS=local) reach the Guardian before the process goes.
  opened.push({ close: () => flushDecisionLogs({ logger }) });
  if (ownsSessions) opened.push(sessions);
  const closeAll = async () => {
    for (const item of opened.reverse()) await item.close();
  };
  try {
    const a2a =
      options.a2a === false
        ? undefined
        : await createA2AServer({
            core: options.core,
            card,
            config,
            logger,
            env,
            ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
          });
    if (a2a) opened.push(a2a);
    const front = options.mode === 'a2a' ? undefined : frontDoor(options, config, sessions, logger);
    const separate = front !== undefined && a2a !== undefined && config.webInterfacePort !== undefined && config.webInterfacePort !== port;

    // A2A lives on the main port: beside the front door, or alone when the front door has its own port.
    const main = front && !separate ? front : a2aOnlyApp(options.agent, logger);
    // The A2A JSON-RPC route is answered below Hono, on the main port (see directJsonRpc).
    const a2aDirect = a2a?.mount(main);
    // POST /stream of the full front door is answered below Hono (see directStream).
    const direct =
      front && options.mode !== 'minimal'
        ? directStream({ core: options.core, sessions, logger, maxBytes: config.maxBodyBytes, keepAliveMs: options.keepAliveMs })
        : undefined;
    // GET /health below Hono too, where the app has that route (the minimal front door has none).
    const health = directStaticJson('/health', agentHealth(options.agent));
    const mainDirect = eitherDirect(main !== front || options.mode !== 'minimal' ? health : undefined, a2aDirect, main === front ? direct : undefined);
    const mainListening = await listen(main, { host, port, portHint: 'set AGENT_PORT or pass --port', ...(mainDirect ? { direct: mainDirect } : {}) });
    opened.push(mainListening);
    let frontListening: Listening | undefined;
    if (separate && front) {
      const frontDirect = eitherDirect(options.mode === 'minimal' ? undefined : health, direct);
      frontListening = await listen(front, {
        host,
        port: config.webInterfacePort ?? 0,
        portHint: 'set WEB_INTERFACE_PORT',
        ...(frontDirect ? { direct: frontDirect } : {}),
      });
      opened.push(frontListening);
    }
    if (a2a) fixCardPort(card, mainListening.port, logger);
    // The gRPC binding on its own port (A2A_GRPC_PORT), declared in the card once it listens.
    if (a2a && config.a2aGrpcPort !== undefined) opened.push(await a2a.serveGrpc({ host, port: config.a2aGrpcPort }));
    const a2aUrl = a2a ? card.supportedInterfaces[0]?.url : undefined;
    const url = (frontListening ?? mainListening).url;
    logger.info('agent listening', {
      url,
      ...(a2aUrl ? { a2a: a2aUrl } : {}),
      mode: options.mode ?? 'full',
      sessions: sessions.backend,
      validation: config.a2aValidationMode,
    });
    let closing: Promise<void> | undefined;
    return {
      url,
      port: (frontListening ?? mainListening).port,
      ...(a2aUrl ? { a2aUrl, card } : {}),
      close: () => (closing ??= closeAll()),
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

function frontDoor(options: Assembly, config: AgentConfig, sessions: SessionStore, logger: Logger): Hono {
  const identity = { name: options.agent.agentName, version: options.agent.version, description: options.agent.description };
  return options.mode === 'minimal'
    ? createMinimalFrontDoor({ core: options.core, logger, maxBodyBytes: config.maxBodyBytes, keepAliveMs: options.keepAliveMs })
    : createFrontDoor({
        core: options.core,
        agent: identity,
        sessions,
        logger,
        maxBodyBytes: config.maxBodyBytes,
        keepAliveMs: options.keepAliveMs,
        chatCompat: options.chatCompat ?? false,
        sessionStartsPerMinute: config.sessionStartsPerMinute,
        chatApiKeys: config.chatApiKeys,
        chatAnonymousContinuation: config.chatAnonymousContinuation,
        chatPerUserKeys: config.chatPerUserKeys,
      });
}

/** The app of an agent reachable by A2A only: GET /health, and the A2A routes once mounted. */
function a2aOnlyApp(agent: FrameworkAgent, logger: Logger): Hono {
  const app = createBaseApp({ logger });
  app.get('/health', (c) => c.json(agentHealth(agent)));
  return app;
}

/** An agent's `GET /health` answer (the front door's is the same). */
function agentHealth(agent: FrameworkAgent): { status: 'ok'; name: string; version: string } {
  return { status: 'ok', name: agent.agentName, version: agent.version };
}

/** The agent's card: AGENT_CARD when set (its name must match the agent's), else one built from the configuration. */
async function agentCard(options: Assembly, config: AgentConfig, host: string): Promise<AgentCard> {
  if (config.agentCard) {
    const [card] = await loadAgentCard(config.agentCard);
    if (card.name !== options.agent.agentName) {
      throw new AgentCardError({
        file: config.agentCard,
        field: 'name',
        message: `Agent card ${config.agentCard} is for "${card.name}", but this agent is "${options.agent.agentName}". Point AGENT_CARD at this agent's card.`,
      });
    }
    return card;
  }
  const port = options.port ?? config.agentPort;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return cardFromConfig({
    name: options.agent.agentName,
    description: options.agent.description,
    version: options.agent.version,
    url: `http://${urlHost}:${port}/`,
    // Declared only when some webhook host is allowed: a card must not promise what every request would be refused.
    pushNotifications: config.a2aPushAllowedHosts.length > 0,
  });
}

function cardPort(card: AgentCard): number | undefined {
  const url = card.supportedInterfaces[0]?.url;
  if (!url) return undefined;
  const parsed = new URL(url);
  return parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
}

/** Makes the card tell the truth about the port actually listened on (port 0, or AGENT_PORT differing from the file), for every interface. */
function fixCardPort(card: AgentCard, port: number, logger: Logger): void {
  const endpoint = card.supportedInterfaces[0];
  if (!endpoint || cardPort(card) === port) return;
  const before = endpoint.url;
  for (const served of card.supportedInterfaces) {
    // A gRPC interface is `host:port` with a port of its own.
    if (served.protocolBinding === A2A_GRPC_BINDING) continue;
    const url = new URL(served.url);
    url.port = String(port);
    served.url = url.toString();
  }
  logger.info('agent card URL follows the listening port', { card: before, served: endpoint.url });
}
