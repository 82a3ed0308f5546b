import { createHash } from 'node:crypto';
import { A2A_VERSION_HEADER, AgentCard as AgentCardJson, SecurityRequirement, SecurityScheme, type AgentCard } from '@a2a-js/sdk';
import { isV1JsonRpcMethod } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { ContentTypeNotSupportedError } from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler, validateVersion, type A2ARequestHandler } from '@a2a-js/sdk/server';
import type { Context, Hono } from 'hono';
import { BadRequestError } from '../core/errors/bad-request-error.js';
import { isPlainObject } from '../core/json.js';
import { errorFields, silentLogger, type Logger } from '../core/logger.js';
import { errorResponse } from '../core/server/http-error.js';
import { clientAbort, requestHeader } from '../core/server/node-bindings.js';
import { checkJsonDepth } from '../core/server/read-json-body.js';
import { sseResponse } from '../core/server/sse-response.js';
import { ABSENT_VERSION, authenticateA2ARequest, callContext, messageOf } from './a2a-admission.js';
import { mountRestBinding } from './a2a-rest-binding.js';
import { mountLegacyRestBinding } from './legacy-rest-binding.js';
import { A2A_LEGACY_PROTOCOL_VERSION, A2A_PROTOCOL_VERSION, A2A_REST_BINDING, cardUrl } from './agent-card.js';
import { invalidJsonRpcRequest, jsonRpcIdOf } from './json-rpc-request.js';
import { cardForAnyVersion, legacyCardJson } from './legacy-agent-card.js';
import { mountPushJwks, PUSH_JWKS_PATH, withPushSignatureExtension } from './push/push-jwks.js';
import type { WebhookSigner } from './push/webhook-signer.js';
import type { AdmittedCaller, A2ARequestGuard } from './request-guard.js';
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

type JsonRpcAnswer = { jsonrpc: '2.0'; id: unknown; result?: unknown; error?: unknown };

/**
 * Mounts the A2A endpoint on `app`: the agent card at
 * `/.well-known/agent-card.json` and JSON-RPC (send, streaming send over
 * SSE, get task, cancel task, ...) at the path of the card's URL, served by
 * the official SDK's `JsonRpcTransportHandler`. Each JSON-RPC request is
 * admitted by the guard (signature, then policy) before the SDK parses it.
 */
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

/** A refusal before the SDK sees the request, as a JSON-RPC error (-32600) that also names our error code. */
function jsonRpcRefusal(status: number, code: string, message: string): Response {
  return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message, data: { code } } }, { status });
}

export function mountA2AEndpoint(app: Hono, options: A2AEndpointOptions): void {
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

  app.post(rpcPath, async (c) => {
    const contentType = requestHeader(c, 'content-type')?.split(';', 1)[0]?.trim().toLowerCase();
    if (contentType !== 'application/json' && contentType !== 'application/a2a+json') {
      // The A2A error (-32005 ContentTypeNotSupportedError) with HTTP 415.
      const error = new ContentTypeNotSupportedError(
        `Send A2A JSON-RPC requests with "Content-Type: application/json" (got ${contentType ? `"${contentType}"` : 'none'}).`,
      );
      return Response.json({ jsonrpc: '2.0', id: null, error: JsonRpcTransportHandler.mapToJSONRPCError(error) }, { status: 415 });
    }
    const admitted = await authenticateA2ARequest(c, options);
    if (admitted.refusal) return admitted.refusal;
    const { caller, body } = admitted;
    let rpc: unknown;
    try {
      rpc = JSON.parse(body);
    } catch {
      return c.json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Invalid JSON payload.' } });
    }
    try {
      checkJsonDepth(rpc);
    } catch (error) {
      // Deeper input would overflow the SDK's validation (a stack overflow, once a 500).
      return c.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: ${(error as Error).message}` } }, 400);
    }
    // A2A defines single requests only; the SDK would read an array as a malformed request object.
    if (Array.isArray(rpc)) return jsonRpcRefusal(400, 'invalid_request', 'Invalid Request: A2A does not support JSON-RPC batches; send one request per call.');
    await options.guard.authorize(caller, messageOf(rpc));
    return answer(c, rpc, caller);
  });

  async function answer(c: Context, rpc: unknown, caller: AdmittedCaller): Promise<Response> {
    const id = jsonRpcIdOf(rpc);
    // Not a JSON-RPC 2.0 request object: -32600 before any handler reads its params (HTTP 200, as JSON-RPC errors are).
    const invalid = invalidJsonRpcRequest(rpc);
    if (invalid !== undefined) return c.json({ jsonrpc: '2.0', id, error: { code: -32600, message: `Invalid Request: ${invalid}.` } });
    // No A2A-Version means 0.3 (the spec), unless the method is a 1.0 name (`SendMessage`, never a 0.3 one): clients
    // that name 1.0 methods but send no header (the TCK's main branch) get the 1.0 handler.
    const header = requestHeader(c, A2A_VERSION_HEADER);
    const method = isPlainObject(rpc) && typeof rpc.method === 'string' ? rpc.method : '';
    const isLegacy = header === undefined ? !isV1JsonRpcMethod(method) : header === A2A_LEGACY_PROTOCOL_VERSION;
    const context = callContext(c, caller, {
      ...(isLegacy ? { extensionsHeader: 'X-A2A-Extensions' } : {}),
      ...(header === undefined ? { version: isLegacy ? ABSENT_VERSION : A2A_PROTOCOL_VERSION } : {}),
    });
    const mapError = isLegacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : JsonRpcTransportHandler.mapToJSONRPCError;
    try {
      validateVersion(context.requestedVersion, options.card, 'JSONRPC');
    } catch (error) {
      // The client's mistake, not ours: one line at warn, no stack.
      logger.warn('A2A request refused: unsupported protocol version', { requested: context.requestedVersion, error: (error as Error).message });
      return c.json({ jsonrpc: '2.0', id, error: mapError(error) });
    }
    let outcome;
    try {
      outcome = await (isLegacy ? legacy : transport).handle(rpc as Record<string, unknown>, context);
    } catch (error) {
      logger.error('A2A request failed', errorFields(error));
      return c.json({ jsonrpc: '2.0', id, error: mapError(error) });
    }
    if (!isAsyncIterable(outcome)) return c.json(outcome);
    // An error before the first event: a request that named A2A-Version 1.0 gets a plain JSON-RPC answer, as the 1.0
    // Python SDK server sends and the 1.0 TCK reads; a 0.3 request, or one with no version (the TCK's main branch),
    // gets an event stream whose one event is the error (0.3 §3.3.1: streaming methods answer 200
    // text/event-stream; the Python 0.3 SDK does so, and those clients refuse any other content type).
    const iterator = outcome[Symbol.asyncIterator]();
    let first: IteratorResult<JsonRpcAnswer> | { failed: JsonRpcAnswer };
    try {
      first = (await iterator.next()) as IteratorResult<JsonRpcAnswer>;
    } catch (error) {
      const failed = { jsonrpc: '2.0' as const, id, error: mapError(error) };
      if (header === A2A_PROTOCOL_VERSION) return c.json(failed);
      first = { failed };
    }
    async function* events(): AsyncGenerator<{ answer: JsonRpcAnswer; failed: boolean }> {
      if ('failed' in first) {
        yield { answer: first.failed, failed: true };
        return;
      }
      if (first.done) return;
      yield { answer: first.value, failed: false };
      try {
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield { answer: next.value as JsonRpcAnswer, failed: false };
      } catch (error) {
        logger.error('A2A stream failed', errorFields(error));
        yield { answer: { jsonrpc: '2.0', id, error: mapError(error) }, failed: true };
      }
    }
    return sseResponse(c, {
      events: events(),
      encode: ({ answer: event, failed }) => (failed ? { event: 'error', data: JSON.stringify(event) } : { data: JSON.stringify(event) }),
      abort: clientAbort(c),
      keepAliveMs: options.keepAliveMs,
    });
  }

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
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
