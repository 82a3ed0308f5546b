import { createHash } from 'node:crypto';
import { A2A_VERSION_HEADER, AgentCard as AgentCardJson, SecurityRequirement, SecurityScheme, type AgentCard } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { ContentTypeNotSupportedError } from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler, type A2ARequestHandler } from '@a2a-js/sdk/server';
import type { Hono } from 'hono';
import { BadRequestError } from '../core/errors/bad-request-error.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { errorResponse } from '../core/server/http-error.js';
import { clientAbort, requestHeader } from '../core/server/node-bindings.js';
import { sseResponse } from '../core/server/sse-response.js';
import { authenticateA2ARequest, messageOf } from './a2a-admission.js';
import { mountRestBinding } from './a2a-rest-binding.js';
import { mountLegacyRestBinding } from './legacy-rest-binding.js';
import { A2A_LEGACY_PROTOCOL_VERSION, A2A_PROTOCOL_VERSION, A2A_REST_BINDING, cardUrl } from './agent-card.js';
import { answerJsonRpc, type RpcAnswerer, type RpcExchange } from './json-rpc-answer.js';
import { directJsonRpc } from './direct-json-rpc.js';
import type { DirectHandler } from '../core/server/listen.js';
import { cardForAnyVersion, legacyCardJson } from './legacy-agent-card.js';
import { mountPushJwks, PUSH_JWKS_PATH, withPushSignatureExtension } from './push/push-jwks.js';
import type { WebhookSigner } from './push/webhook-signer.js';
import type { A2ARequestGuard } from './request-guard.js';
import { SIGNATURE_HEADERS, SIGNATURE_SCHEME } from './signing/request-signature.js';

export { messageOf };

/** Where the agent card is served (A2A well-known path). */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

export interface A2AEndpointOptions {
  card: AgentCard;
  /** The SDK request handler (DefaultRequestHandler over our executor and a task store). */
  requestHandler: A2ARequestHandler;
  /** Signature and policy checks run before the SDK sees the request. */
  guard: A2ARequestGuard;
  logger?: Logger;
  maxBodyBytes: number;
  keepAliveMs?: number;
  /**
   * The card shape for a request without `A2A-Version`: by default the 1.0
   * card with the 0.3 fields it lacks added (what the official Python server
   * serves; 0.3 and 1.0 clients both read it), or only `1.0`, or only `0.3`.
   * `A2A-Version: 1.0` and `0.3` always get their own shape.
   */
  cardDefaultVersion?: '1.0' | '0.3';
  /** Signs the served 1.0 card (JWS `signatures`); the signature covers the card as served, security schemes included. */
  cardSigner?: (card: AgentCard) => Promise<AgentCard>;
  /** Signs push-notification webhooks: its JWKS is served at `/.well-known/jwks.json` and named in the card. */
  pushSigner?: WebhookSigner;
}

/** How long a client may cache the card (it changes only when the agent restarts with a new card). */
const CARD_MAX_AGE_SECONDS = 300;

/** The name under which the card declares the request-signing scheme. */
export const SIGNATURE_SCHEME_NAME = 'fw1-hmac';

const SIGNATURE_SCHEME_DESCRIPTION =
  `Every A2A request (JSON-RPC and REST) is signed with the calling agent's shared HMAC-SHA256 key (${SIGNATURE_SCHEME}). ` +
  `Send the headers ${Object.values(SIGNATURE_HEADERS).join(', ')}: the signature is base64url HMAC-SHA256 over the lines ` +
  `"${SIGNATURE_SCHEME}", upper-case method, path with query, unix timestamp in seconds, nonce, caller agent name, this agent's name and the body's SHA-256 (hex), joined by newlines. ` +
  'Keys are exchanged out of band (A2A_KEYS_FILE); an unsigned or badly signed request gets 401 with a WWW-Authenticate challenge.';

/**
 * The card as served: the agent's card with the signing scheme declared
 * (A2A `securitySchemes` / `securityRequirements`, in the protocol's JSON
 * form) when this agent requires signed requests.
 */
function publicCard(card: AgentCard, signatureRequired: boolean): unknown {
  if (!signatureRequired) return card;
  const scheme = SecurityScheme.toJSON({
    scheme: { $case: 'httpAuthSecurityScheme', value: { scheme: SIGNATURE_SCHEME, bearerFormat: '', description: SIGNATURE_SCHEME_DESCRIPTION } },
  });
  return {
    ...card,
    securitySchemes: { ...(card.securitySchemes as object), [SIGNATURE_SCHEME_NAME]: scheme },
    securityRequirements: [SecurityRequirement.toJSON({ schemes: { [SIGNATURE_SCHEME_NAME]: { list: [] } } })],
  };
}

/**
 * Mounts the A2A endpoint on `app`: the agent card at
 * `/.well-known/agent-card.json` and JSON-RPC (send, streaming send over
 * SSE, get task, cancel task, ...) at the path of the card's URL, served by
 * the official SDK's `JsonRpcTransportHandler`. Each JSON-RPC request is
 * admitted by the guard (signature, then policy) before the SDK parses it.
 *
 * Returns the same JSON-RPC route below Hono (`directJsonRpc`): give it to
 * `listen(app, { direct })` so a hop skips Hono's Request and Response.
 */
export function mountA2AEndpoint(app: Hono, options: A2AEndpointOptions): DirectHandler {
  const logger = options.logger ?? silentLogger;
  const transport = new JsonRpcTransportHandler(options.requestHandler);
  // v0.3 requests (A2A-Version 0.3, or none) go through the SDK's compatibility layer, behind the same guard.
  const legacy = new LegacyJsonRpcTransportHandler(options.requestHandler);
  const rpcPath = new URL(cardUrl(options.card)).pathname || '/';
  const restInterface = options.card.supportedInterfaces.find((i) => i.protocolBinding === A2A_REST_BINDING && i.protocolVersion === A2A_PROTOCOL_VERSION);
  const legacyRestInterface = options.card.supportedInterfaces.find(
    (i) => i.protocolBinding === A2A_REST_BINDING && i.protocolVersion === A2A_LEGACY_PROTOCOL_VERSION,
  );
  // The card changes only when the agent restarts (or its URL is fixed right after listening): its date is the mount's.
  const cardModified = new Date(Math.floor(Date.now() / 1000) * 1000).toUTCString();
  // Serialised per request: the URL may be fixed once the listening port is known.
  // The signed form of each served card body (the body changes only when the URL is fixed after listening).
  const signedBodies = new Map<string, Promise<string>>();
  const signedBody = (body: string): Promise<string> => {
    let signed = signedBodies.get(body);
    if (!signed) {
      signed = options.cardSigner!(AgentCardJson.fromJSON(JSON.parse(body))).then((card) => JSON.stringify(AgentCardJson.toJSON(card)));
      signedBodies.clear();
      signedBodies.set(body, signed);
    }
    return signed;
  };
  app.get(AGENT_CARD_PATH, async (c) => {
    // No header: the shape A2A_CARD_DEFAULT_VERSION names, or by default the 1.0 card with the 0.3 fields added.
    const version = requestHeader(c, A2A_VERSION_HEADER) ?? options.cardDefaultVersion;
    const signing = options.guard.signatureRequired
      ? { name: SIGNATURE_SCHEME_NAME, scheme: SIGNATURE_SCHEME, description: SIGNATURE_SCHEME_DESCRIPTION }
      : undefined;
    const shaped =
      (version === A2A_LEGACY_PROTOCOL_VERSION ? legacyCardJson(options.card, signing) : undefined) ??
      publicCard(options.card, options.guard.signatureRequired);
    const card = options.pushSigner
      ? withPushSignatureExtension(shaped, options.pushSigner, new URL(PUSH_JWKS_PATH, cardUrl(options.card)).toString())
      : shaped;
    const unsigned = JSON.stringify(card);
    const legacyShape = version === A2A_LEGACY_PROTOCOL_VERSION && 'preferredTransport' in (card as object);
    const v1Body = options.cardSigner && !legacyShape ? await signedBody(unsigned) : unsigned;
    // The 0.3 fields ride outside the signed 1.0 card: a verifier reads the card as a 1.0 AgentCard (unknown fields
    // dropped) before it canonicalises it.
    const body =
      version === undefined ? JSON.stringify(cardForAnyVersion(JSON.parse(v1Body) as Record<string, unknown>, legacyCardJson(options.card, signing))) : v1Body;
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    const headers = {
      'content-type': 'application/json',
      'cache-control': `public, max-age=${CARD_MAX_AGE_SECONDS}`,
      etag,
      'last-modified': cardModified,
      vary: A2A_VERSION_HEADER,
    };
    const ifNoneMatch = requestHeader(c, 'if-none-match');
    if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*'))
      return new Response(null, { status: 304, headers });
    const ifModifiedSince = requestHeader(c, 'if-modified-since');
    if (ifNoneMatch === undefined && ifModifiedSince !== undefined && Date.parse(ifModifiedSince) >= Date.parse(cardModified))
      return new Response(null, { status: 304, headers });
    return new Response(body, { status: 200, headers });
  });

  if (options.pushSigner) mountPushJwks(app, options.pushSigner);

  const answerer: RpcAnswerer = { card: options.card, guard: options.guard, transport, legacy, logger };
  // A route the app already had for POST at this path (a front door's, when the card's URL is one of its paths)
  // answers before ours in Hono: the direct route then leaves it the request, as the app would.
  const shadowed = app.routes.some((route) => (route.method === 'POST' || route.method === 'ALL') && ['*', '/*', rpcPath].includes(route.path));
  app.post(rpcPath, async (c) => {
    const contentType = requestHeader(c, 'content-type');
    if (!isJsonRpcContentType(contentType)) return contentTypeRefusal(contentType);
    const admitted = await authenticateA2ARequest(c, options);
    if (admitted.refusal) return admitted.refusal;
    const io: RpcExchange<Response> = {
      header: (name) => requestHeader(c, name),
      json: (body, status) => (status === undefined ? c.json(body) : c.json(body, status as 400)),
      stream: (stream) => sseResponse(c, { ...stream, abort: clientAbort(c), keepAliveMs: options.keepAliveMs }),
    };
    return answerJsonRpc(io, admitted.body, admitted.caller, answerer);
  });

  // Before the JSON-RPC catch-all, so `/rest/...` under a `/` JSON-RPC path reaches the REST routes.
  if (restInterface) {
    mountRestBinding(app, {
      basePath: new URL(restInterface.url).pathname,
      card: options.card,
      requestHandler: options.requestHandler,
      guard: options.guard,
      maxBodyBytes: options.maxBodyBytes,
      logger,
      ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
    });
  }

  // v0.3 HTTP+JSON under `<url>/v1/...` (0.3-era peers).
  if (legacyRestInterface) {
    mountLegacyRestBinding(app, {
      basePath: new URL(legacyRestInterface.url).pathname,
      requestHandler: options.requestHandler,
      guard: options.guard,
      maxBodyBytes: options.maxBodyBytes,
      logger,
      ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
    });
  }

  app.all(rpcPath, (c) =>
    errorResponse(new BadRequestError({ code: 'method_not_allowed', message: `${c.req.method} is not allowed on ${rpcPath}; A2A JSON-RPC uses POST.` }), {
      Allow: 'POST',
    }),
  );
  if (shadowed) return () => false;
  return directJsonRpc({
    rpcPath,
    acceptsContentType: isJsonRpcContentType,
    answerer,
    maxBodyBytes: options.maxBodyBytes,
    logger,
    keepAliveMs: options.keepAliveMs,
  });
}

/** Whether a JSON-RPC request's Content-Type is one A2A accepts (`application/json` or `application/a2a+json`). */
export function isJsonRpcContentType(contentType: string | undefined): boolean {
  if (contentType === 'application/json') return true;
  const mediaType = contentType?.split(';', 1)[0]?.trim().toLowerCase();
  return mediaType === 'application/json' || mediaType === 'application/a2a+json';
}

/** The A2A error (-32005 ContentTypeNotSupportedError) with HTTP 415. */
export function contentTypeRefusal(contentType: string | undefined): Response {
  const error = new ContentTypeNotSupportedError(
    `Send A2A JSON-RPC requests with "Content-Type: application/json" (got ${contentType ? `"${contentType.split(';', 1)[0]?.trim().toLowerCase()}"` : 'none'}).`,
  );
  return Response.json({ jsonrpc: '2.0', id: null, error: JsonRpcTransportHandler.mapToJSONRPCError(error) }, { status: 415 });
}
