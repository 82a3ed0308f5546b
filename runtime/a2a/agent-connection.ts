import type { AgentCard } from '@a2a-js/sdk';
import { statSync } from 'node:fs';
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory, type Client, type TransportFactory } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { loadA2AConfig, type Env } from '../core/config.js';
import { AgentNotReadyError } from '../core/errors/agent-not-ready-error.js';
import { FrameworkError } from '../core/framework-error.js';
import { PermissionError } from './errors/permission-error.js';
import { SignatureError } from './errors/signature-error.js';
import type { Logger } from '../core/logger.js';
import { chunksFromResult, chunksFromStream, type A2AChunk } from './a2a-chunk.js';
import { userMessage } from './a2a-parts.js';
import { signingFetch } from './signing-fetch.js';
import { traceContextInterceptor } from './grpc-trace-context.js';
import { signingInterceptor } from './signing-grpc.js';
import type { KeyRing } from './signing/key-ring.js';
import { loadKeyRing } from './signing/load-key-ring.js';
import type { SigningKey } from './signing/signing-key.js';
import { createValidator, type A2AValidator } from './validator.js';

export interface AgentConnectionOptions {
  /** Conversation the call belongs to; it becomes the target task's `context_id`. */
  contextId?: string;
  signal?: AbortSignal;
  /** Validator to use; default: the one the environment describes. */
  validator?: A2AValidator;
  /** Keys to sign with; default: A2A_KEYS_FILE / A2A_KEYS. */
  keys?: KeyRing;
  /** Which key signs (A2A_KEY_ID); needed only when the source agent has several. */
  keyId?: string;
  /** Bindings to call over, most preferred first (A2A_PREFERRED_TRANSPORTS); after them, the target card's order. */
  preferredTransports?: readonly string[];
  /**
   * Whether the answer streams. `true` (the default): `SendStreamingMessage`
   * over SSE, every event a chunk as it arrives (progress, prompts, results).
   * `false`: one blocking `SendMessage`, answered in one JSON document when
   * the task ends or waits for input; the chunks are then the task's
   * artifacts followed by the task in its final state, which
   * `A2AResponse.fromResults` reads as it reads a stream's. For a caller
   * that wants only the outcome: both ends skip the SSE framing and the
   * client its event parsing. The answer is silent until the task ends, so
   * a task that runs longer than the client's silence limit (5 minutes)
   * fails where a stream's keep-alives would have kept the call open.
   */
  stream?: boolean;
  /** Where configuration is read; default `process.env`. */
  env?: Env;
  logger?: Logger;
}

/**
 * Calls `target` on behalf of `source` over A2A and yields the answer's
 * chunks as they stream in (or, with `stream: false`, all at once when the
 * task ends). Before sending, it (1) asks the validator
 * whether `source` may talk to `target` and throws `PermissionError` with
 * the reason when not, then (2) signs the request with the source agent's
 * HMAC key. A payload string is sent as text, an object as a data part;
 * either reaches the target task exactly as given.
 *
 * @example
 * const [planner] = await loadAgentCard('agent_cards/planner.json');
 * const [executor] = await loadAgentCard('agent_cards/executor.json');
 * for await (const chunk of agentConnection(planner, executor, 'Book the meeting room')) console.log(chunk);
 */
export async function* agentConnection(
  sourceCard: AgentCard,
  targetCard: AgentCard,
  payload: string | Readonly<Record<string, unknown>>,
  options: AgentConnectionOptions = {},
): AsyncGenerator<A2AChunk, void, undefined> {
  const env = options.env ?? process.env;
  const needsConfig = options.validator === undefined || options.keys === undefined || options.keyId === undefined;
  const config = needsConfig ? loadA2AConfig({ env }) : undefined;
  const validator = options.validator ?? createValidator(config!, { env, ...(options.logger ? { logger: options.logger } : {}) });
  const message = typeof payload === 'string' ? payload : JSON.stringify(payload);

  const [allowed, reason] = await validator.validateA2AAccess(sourceCard, targetCard, message, options.signal ? { signal: options.signal } : {});
  if (!allowed) throw new PermissionError({ reason, source: sourceCard.name, target: targetCard.name });

  const keys = options.keys ?? keyRingFrom(env);
  // Unsigned only where validation is off and no key exists: a development set-up.
  const key: SigningKey | undefined =
    keys.size === 0 && validator.mode === 'disabled' ? undefined : keys.signingKeyFor(sourceCard.name, options.keyId ?? config?.a2aKeyId);
  const request = {
    tenant: '',
    message: userMessage({ payload, ...(options.contextId ? { contextId: options.contextId } : {}) }),
    configuration: undefined,
    metadata: undefined,
  };
  // The bindings the target declares, in order of preference; the next one is tried only when a peer could not be
  // reached at all over this one (nothing was sent, so nothing runs twice).
  const bindings = bindingsFor(targetCard, options.preferredTransports ?? config?.a2aPreferredTransports ?? []);
  if (bindings.length === 0) {
    const declared = [...new Set(targetCard.supportedInterfaces.map((i) => i.protocolBinding))].join(', ') || 'none';
    throw new FrameworkError({
      code: 'agent_http_error',
      message: `${targetCard.name} declares no A2A binding this agent speaks (declared: ${declared}; spoken: ${[...TRANSPORTS].join(', ')}).`,
    });
  }
  for (const [index, binding] of bindings.entries()) {
    const client = await clientFor(sourceCard.name, targetCard, key, binding);
    let started = false;
    const callOptions = options.signal ? { signal: options.signal } : {};
    try {
      if (options.stream === false) {
        // A failure is thrown before anything is yielded: the fallback below still needs `unreached` (nothing sent).
        yield* chunksFromResult(await client.sendMessage(request, callOptions));
        return;
      }
      for await (const event of client.sendMessageStream(request, callOptions)) {
        started = true;
        yield* chunksFromStream(event);
      }
      return;
    } catch (error) {
      const mapped = refusalOf(error, sourceCard.name, targetCard) ?? error;
      if (!started && index < bindings.length - 1 && mapped instanceof AgentNotReadyError && mapped.unreached) {
        options.logger?.warn('A2A peer unreachable over one binding; trying the next it declares', {
          target: targetCard.name,
          binding,
          next: bindings[index + 1],
          detail: mapped.message,
        });
        continue;
      }
      throw mapped;
    }
  }
}

/** The bindings this client speaks, by their card names. */
const TRANSPORTS = new Set(['JSONRPC', 'HTTP+JSON', 'GRPC']);

/** The target's bindings this client speaks: the preferred ones it declares first, then the rest in the card's order. */
function bindingsFor(target: AgentCard, preferred: readonly string[]): string[] {
  const declared = target.supportedInterfaces.map((i) => i.protocolBinding.toUpperCase()).filter((name) => TRANSPORTS.has(name));
  return [...new Set([...preferred.filter((name) => declared.includes(name)), ...declared])];
}

/**
 * SDK clients by target card, signing key and (source, interface URL): a hop
 * reuses the client of the previous one instead of building a factory and a
 * transport per call. Weak keys, so a dropped card or a rotated key (a new
 * key object) lets its clients go.
 */
const clients = new WeakMap<AgentCard, WeakMap<object, Map<string, Promise<Client>>>>();
const UNSIGNED = {};
function clientFor(source: string, target: AgentCard, key: SigningKey | undefined, binding: string): Promise<Client> {
  let byKey = clients.get(target);
  if (byKey === undefined) clients.set(target, (byKey = new WeakMap()));
  let bySource = byKey.get(key ?? UNSIGNED);
  if (bySource === undefined) byKey.set(key ?? UNSIGNED, (bySource = new Map()));
  const id = `${source}\u0000${target.name}\u0000${binding}\u0000${target.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.url}`).join(' ')}`;
  let client = bySource.get(id);
  if (client === undefined) {
    // legacyCompat: a peer whose card declares only A2A 0.3 (an older SDK) is called through the SDK's v0.3 transport.
    const signing = { source, target: target.name, key };
    const factories: Record<string, () => TransportFactory> = {
      JSONRPC: () => new JsonRpcTransportFactory({ fetchImpl: signingFetch(signing), legacyCompat: { enabled: true } }),
      'HTTP+JSON': () => new RestTransportFactory({ fetchImpl: signingFetch(signing), legacyCompat: { enabled: true } }),
      GRPC: () =>
        new GrpcTransportFactory({
          grpcCallOptions: { interceptors: [traceContextInterceptor(), signingInterceptor(signing)] },
          legacyCompat: { enabled: true },
        }),
    };
    client = new ClientFactory({ transports: [factories[binding]!()], preferredTransports: [binding] }).createFromAgentCard(target);
    bySource.set(id, client);
    client.catch(() => bySource.delete(id));
  }
  return client;
}

/**
 * Our error for a failed call, whatever the binding: JSON-RPC and REST refusals
 * are already ours (signingFetch); a gRPC status is mapped here
 * (UNAUTHENTICATED → SignatureError, PERMISSION_DENIED → PermissionError,
 * UNAVAILABLE → AgentNotReadyError); a peer that vanished mid-stream, which
 * the SDK reports as undici's bare `TypeError: terminated` or a socket
 * error, is named.
 */
function refusalOf(error: unknown, source: string, target: AgentCard): Error | undefined {
  if (FrameworkError.isInstance(error) || !(error instanceof Error) || error.name === 'AbortError') return undefined;
  const url = target.supportedInterfaces[0]?.url ?? '(no url)';
  const status = (error as { transport?: string; status?: number }).transport === 'grpc' ? (error as { status?: number }).status : undefined;
  if (status !== undefined) {
    const details = (error.cause as { details?: string } | undefined)?.details ?? error.message;
    if (status === GRPC_UNAUTHENTICATED) return new SignatureError({ failure: 'bad_signature', message: `${target.name} refused the call: ${details}` });
    if (status === GRPC_PERMISSION_DENIED) return new PermissionError({ reason: `refused by ${target.name}: ${details}`, source, target: target.name });
    if (status === GRPC_UNAVAILABLE) {
      const unreached = /ECONNREFUSED|No connection established|ENOTFOUND|EHOSTUNREACH/.test(details);
      return new AgentNotReadyError({ url, detail: details, cause: error, unreached, ...(unreached ? {} : { lostAgent: target.name }) });
    }
    return undefined;
  }
  const cause = error.cause instanceof Error ? error.cause : undefined;
  const lost =
    (error instanceof TypeError && error.message === 'terminated') ||
    ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'].includes((cause as NodeJS.ErrnoException | undefined)?.code ?? (error as NodeJS.ErrnoException).code ?? '');
  if (!lost) return undefined;
  return new AgentNotReadyError({ url, lostAgent: target.name, detail: cause?.message ?? error.message, cause: error });
}

/** gRPC status codes (grpc/status.proto). */
const GRPC_PERMISSION_DENIED = 7;
const GRPC_UNAVAILABLE = 14;
const GRPC_UNAUTHENTICATED = 16;

/**
 * The key ring the environment names, read again only when the variables or
 * the keys file (size, modification time) change: a hop must not re-read and
 * re-parse the secrets file every time, and a rotated file is still picked up.
 */
let cachedRing: { stamp: string; ring: KeyRing } | undefined;
function keyRingFrom(env: Env): KeyRing {
  let fileStamp = '';
  if (env.A2A_KEYS_FILE) {
    try {
      const stat = statSync(env.A2A_KEYS_FILE);
      fileStamp = `${stat.size}:${stat.mtimeMs}:${stat.mode}`;
    } catch {
      fileStamp = 'unreadable'; // loadKeyRing reports it
    }
  }
  const stamp = JSON.stringify([env.A2A_KEYS_FILE ?? '', fileStamp, env.A2A_KEYS ?? '']);
  if (cachedRing?.stamp === stamp && fileStamp !== 'unreadable') return cachedRing.ring;
  const ring = loadKeyRing({ env });
  cachedRing = { stamp, ring };
  return ring;
}
