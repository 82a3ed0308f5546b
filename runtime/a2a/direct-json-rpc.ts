import type { IncomingMessage, ServerResponse } from 'node:http';
import { FrameworkError } from '../core/framework-error.js';
import type { Logger } from '../core/logger.js';
import type { DirectHandler } from '../core/server/listen.js';
import { writeNodeError, writeNodeJson } from '../core/server/node-answer.js';
import { nodeClientAbort } from '../core/server/node-bindings.js';
import { receiveNodeBody } from '../core/server/read-json-body.js';
import { streamSseToNode } from '../core/server/sse-response.js';
import { WWW_AUTHENTICATE } from './a2a-admission.js';
import { answerJsonRpc, type RpcAnswerer, type RpcExchange } from './json-rpc-answer.js';

export interface DirectJsonRpcOptions {
  /** The path of the card's URL, where JSON-RPC is served (`/` by default). */
  rpcPath: string;
  /** Whether a request's Content-Type is one the route takes (others go to the app, which refuses them). */
  acceptsContentType: (contentType: string | undefined) => boolean;
  answerer: RpcAnswerer;
  maxBodyBytes: number;
  logger: Logger;
  keepAliveMs?: number | undefined;
}

/**
 * The A2A JSON-RPC route (`POST` at the card's URL path) answered on Node's
 * own request and response, below Hono: an agent-to-agent hop's route, as
 * `POST /stream` is the front door's. Only the exact path (no query string)
 * with an accepted Content-Type; everything else goes to the app, whose
 * JSON-RPC route gives the same answers through the same steps (body limit,
 * signature check with its 401 challenge, JSON-RPC errors, policy check,
 * the SDK's transport handlers, SSE). Skipping Hono's Request, context,
 * routing and Response is about 30 µs of a hop's executor CPU.
 */
export function directJsonRpc(options: DirectJsonRpcOptions): DirectHandler {
  const { rpcPath, logger } = options;
  const fail = (response: ServerResponse, thrown: unknown, headers?: Record<string, string>) =>
    writeNodeError(response, thrown, { logger, path: rpcPath, ...(headers ? { headers } : {}) });
  return (request, response) => {
    if (request.method !== 'POST' || request.url !== rpcPath || !options.acceptsContentType(request.headers['content-type'])) return false;
    receiveNodeBody(request, response, options.maxBodyBytes, (error, body) => {
      if (error) fail(response, error);
      else answer(request, response, body, options).catch((thrown: unknown) => fail(response, thrown));
    });
    return true;
  };
}

/** A request header as one string (repeated headers joined, as Hono's `header()` gives them). */
function headerOf(request: IncomingMessage): (name: string) => string | undefined {
  return (name) => {
    const value = request.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  };
}

async function answer(request: IncomingMessage, response: ServerResponse, body: string, options: DirectJsonRpcOptions): Promise<void> {
  const header = headerOf(request);
  let caller;
  try {
    caller = await options.answerer.guard.authenticate({ method: 'POST', path: options.rpcPath, body, header });
  } catch (error) {
    // Tell a standard client how to sign (RFC 9110 §11.6.1), with the 401.
    if (FrameworkError.isInstance(error) && error.code === 'signature_invalid') {
      writeNodeError(response, error, { logger: options.logger, path: options.rpcPath, headers: { 'WWW-Authenticate': WWW_AUTHENTICATE } });
      return;
    }
    throw error;
  }
  const io: RpcExchange<void> = {
    header,
    json: (answerBody, status) => writeNodeJson(response, status ?? 200, answerBody),
    stream: (stream) =>
      streamSseToNode(response, {
        ...stream,
        abort: nodeClientAbort(response),
        ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
      }),
  };
  await answerJsonRpc(io, body, caller, options.answerer);
}
