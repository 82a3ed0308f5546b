import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { AgentCard } from '@a2a-js/sdk';
import type { AgentExecutor } from '@a2a-js/sdk/server';
import type { Hono } from 'hono';
import type { DirectHandler } from '../core/server/listen.js';
import type { AgentConfig } from '../core/config.js';
import type { FrameworkCore } from '../core/framework-core.js';
import type { Logger } from '../core/logger.js';
import { ConfigError } from '../core/errors/config-error.js';
import { mountA2AEndpoint } from './a2a-endpoint.js';
import type { GrpcListening } from './a2a-grpc-binding.js';
import { signAgentCard } from './card-signing.js';
import { cardRef, cardUrl, interfacesFor, loadAgentCard } from './agent-card.js';
import { CheckedRequestHandler } from './checked-request-handler.js';
import { createAuditLog, disabledAuditLog } from './audit-log.js';
import { createA2AStores } from './create-a2a-task-store.js';
import { FrameworkExecutor } from './framework-executor.js';
import { CheckedPushNotificationStore } from './push/checked-push-store.js';
import { WebhookPolicy } from './push/webhook-policy.js';
import { WebhookPushSender } from './push/webhook-push-sender.js';
import { loadPreviousPushKeys } from './push/previous-push-keys.js';
import { WebhookSigner } from './push/webhook-signer.js';
import { A2ARequestGuard } from './request-guard.js';
import { createNonceStore } from './signing/create-nonce-store.js';
import { loadKeyRing } from './signing/load-key-ring.js';
import type { AgentRef } from './validation-input.js';
import { createValidator } from './validator.js';

export interface A2AServer {
  /** Adds the card route and the JSON-RPC route to `app`; returns the JSON-RPC route below Hono, for `listen(app, { direct })`. */
  mount(app: Hono): DirectHandler;
  /** Serves the gRPC binding on its own port, behind the same guard, and declares it in the card. */
  serveGrpc(options: { host: string; port: number }): Promise<GrpcListening>;
  /** Closes the task and nonce stores. */
  close(): Promise<void>;
}

/**
 * Assembles an agent's A2A endpoint from its configuration: the SDK request
 * handler over a `FrameworkExecutor`, tasks and push-notification configs
 * in memory or Redis (SESSION_BACKEND), webhooks sent by `WebhookPushSender`
 * to the hosts of A2A_PUSH_ALLOWED_HOSTS, the key ring (A2A_KEYS_FILE / A2A_KEYS), nonces in the
 * same backend, and the receiving-side validator. Logs loudly when
 * validation is disabled or unsigned calls are accepted.
 */
export async function createA2AServer(options: {
  core: FrameworkCore;
  card: AgentCard;
  config: AgentConfig;
  logger: Logger;
  env?: Readonly<Record<string, string | undefined>>;
  keepAliveMs?: number;
  /** The executor behind the endpoint; default a `FrameworkExecutor` over `core` (another one serves conformance suites). */
  executor?: AgentExecutor;
}): Promise<A2AServer> {
  const { config, logger, card } = options;
  // What this endpoint serves, whatever protocol version the card file names (that field describes peers).
  card.supportedInterfaces = interfacesFor(cardUrl(card));
  const keys = loadKeyRing({ env: options.env ?? process.env });
  for (const warning of keys.warnings) logger.warn(warning);
  const acceptUnsigned = config.a2aAcceptUnsigned || config.a2aValidationMode === 'disabled';
  if (config.a2aValidationMode === 'disabled') {
    logger.warn('A2A VALIDATION IS DISABLED: every agent may call this one and unsigned calls are accepted. Development only; set A2A_VALIDATION_MODE=strict.');
  } else if (config.a2aAcceptUnsigned) {
    logger.warn('A2A_ACCEPT_UNSIGNED is on: unsigned calls are accepted with the caller name they claim. Development only.');
  }
  if (keys.size === 0 && !acceptUnsigned) {
    logger.warn('No A2A keys are configured (A2A_KEYS_FILE or A2A_KEYS): every signed call will be refused as an unknown key.');
  }
  const cardSigner = await cardSignerFrom(config);
  const audit = config.a2aEnableAuditLog ? createAuditLog() : disabledAuditLog;
  const { tasks, pushConfigs } = createA2AStores(config);
  const nonces = createNonceStore(config);
  const guard = new A2ARequestGuard({
    self: card,
    keys,
    nonces,
    validator: createValidator(config, { checkedBy: 'server', logger, audit, keys }),
    acceptUnsigned,
    peers: config.agentCard ? await peerCards(config.agentCard, logger) : new Map(),
    audit,
    logger,
  });
  // Push notifications (when the card declares them): configs beside the tasks, webhooks limited by A2A_PUSH_ALLOWED_HOSTS.
  const policy = new WebhookPolicy({ allowedHosts: config.a2aPushAllowedHosts });
  if (card.capabilities?.pushNotifications && !policy.allowsAny) {
    logger.warn('The agent card declares push notifications but A2A_PUSH_ALLOWED_HOSTS is empty: every webhook will be refused.');
  }
  const pushStore = new CheckedPushNotificationStore({ inner: pushConfigs, policy });
  // Webhook POSTs signed with A2A_PUSH_SIGNING_KEY_FILE (a bad or missing key stops the start).
  const pushSigner = config.a2aPushSigningKeyFile
    ? await WebhookSigner.fromFile(config.a2aPushSigningKeyFile, config.a2aPushSigningKeyId ? { keyId: config.a2aPushSigningKeyId } : {})
    : undefined;
  if (config.a2aPushSigningPreviousKeysFile) {
    if (!pushSigner)
      throw new ConfigError({ issues: [{ variable: 'A2A_PUSH_SIGNING_PREVIOUS_KEYS_FILE', message: 'needs A2A_PUSH_SIGNING_KEY_FILE (the current key)' }] });
    pushSigner.publishPreviousKeys(await loadPreviousPushKeys({ file: config.a2aPushSigningPreviousKeysFile, currentKeyId: pushSigner.keyId }));
  }
  if (pushSigner && !card.capabilities?.pushNotifications)
    logger.warn('A2A_PUSH_SIGNING_KEY_FILE is set but the agent card does not declare push notifications: nothing will be signed.');
  const sender = new WebhookPushSender({ store: pushStore, policy, logger, ...(pushSigner ? { signer: pushSigner, issuer: () => cardUrl(card) } : {}) });
  const requestHandler = new CheckedRequestHandler(
    card,
    tasks,
    options.executor ?? new FrameworkExecutor({ core: options.core, logger }),
    undefined,
    pushStore,
    sender,
  );
  return {
    mount: (app) =>
      mountA2AEndpoint(app, {
        card,
        requestHandler,
        guard,
        logger,
        maxBodyBytes: config.maxBodyBytes,
        cardDefaultVersion: config.a2aCardDefaultVersion,
        ...(cardSigner ? { cardSigner } : {}),
        ...(pushSigner ? { pushSigner } : {}),
        ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
      }),
    // gRPC (and @grpc/grpc-js) is loaded only by an agent that serves it (A2A_GRPC_PORT).
    serveGrpc: async ({ host, port }) =>
      (await import('./a2a-grpc-binding.js')).startGrpcBinding({ card, requestHandler, guard, logger, maxBodyBytes: config.maxBodyBytes, host, port }),
    close: async () => {
      sender.close();
      await Promise.allSettled([tasks.close(), nonces.close()]);
    },
  };
}

/** Signs the served card with A2A_CARD_SIGNING_KEY_FILE (kid A2A_CARD_SIGNING_KEY_ID), when set; a bad key stops the start. */
async function cardSignerFrom(config: AgentConfig): Promise<((card: AgentCard) => Promise<AgentCard>) | undefined> {
  if (config.a2aCardSigningKeyFile === undefined) return undefined;
  if (config.a2aCardSigningKeyId === undefined)
    throw new ConfigError({ issues: [{ variable: 'A2A_CARD_SIGNING_KEY_ID', message: 'is required with A2A_CARD_SIGNING_KEY_FILE (the JWS kid)' }] });
  let privateKeyPem: string;
  try {
    privateKeyPem = await readFile(config.a2aCardSigningKeyFile, 'utf8');
  } catch (error) {
    throw new ConfigError({ issues: [{ variable: 'A2A_CARD_SIGNING_KEY_FILE', message: `cannot be read: ${(error as Error).message}` }] });
  }
  const keyId = config.a2aCardSigningKeyId;
  const signer = (card: AgentCard) => signAgentCard(card, { privateKeyPem, keyId });
  return signer;
}

/** The cards beside this agent's own card, by name: the agents it knows. Unreadable cards are skipped with a warning. */
async function peerCards(ownCard: string, logger: Logger): Promise<Map<string, AgentRef>> {
  const dir = dirname(ownCard);
  const peers = new Map<string, AgentRef>();
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.json'));
  } catch {
    return peers;
  }
  for (const name of names) {
    try {
      const [card] = await loadAgentCard(join(dir, name));
      peers.set(card.name, cardRef(card));
    } catch (error) {
      logger.debug('skipped a file beside the agent card', { file: join(dir, name), error: error instanceof Error ? error.message : String(error) });
    }
  }
  return peers;
}
