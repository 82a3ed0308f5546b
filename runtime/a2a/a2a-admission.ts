import { A2A_VERSION_HEADER, Extensions } from '@a2a-js/sdk';
import { ServerCallContext, type User } from '@a2a-js/sdk/server';
import type { Context } from 'hono';
import { FrameworkError } from '../core/framework-error.js';
import { isPlainObject } from '../core/json.js';
import { errorResponse } from '../core/server/http-error.js';
import { requestHeader } from '../core/server/node-bindings.js';
import { readBodyText } from '../core/server/read-json-body.js';
import type { AdmittedCaller, A2ARequestGuard } from './request-guard.js';
import { SIGNATURE_HEADERS, SIGNATURE_SCHEME } from './signing/request-signature.js';

/** The challenge of a 401: the HMAC scheme and the headers a request must carry (see docs/a2a.md). */
export const WWW_AUTHENTICATE = `${SIGNATURE_SCHEME} realm="a2a", headers="${Object.values(SIGNATURE_HEADERS).join(' ')}"`;

/** The version a request without an `A2A-Version` header asks for (the SDK's rule: such a client predates the header). */
export const ABSENT_VERSION = '0.3';

/** The caller an A2A request was admitted as, for the SDK's task scoping. */
class AgentUser implements User {
  constructor(readonly userName: string) {}
  get isAuthenticated(): boolean {
    return true;
  }
}

/** A request whose signature the guard accepted (who sent it and its raw body), or the refusal to send back. */
export type Authentication = { caller: AdmittedCaller; body: string; refusal?: undefined } | { refusal: Response };

/**
 * The first check of every A2A route, whatever the binding (JSON-RPC, REST,
 * v0.3): reads the body (bounded by `maxBodyBytes`) and verifies its HMAC
 * signature over method, path with query and body. Resolves to the caller,
 * or to the 401 `refusal` (with a `WWW-Authenticate` challenge) to send back;
 * other errors propagate to the app's error handler. Fails closed: no
 * route runs before this returned a caller.
 */
export async function authenticateA2ARequest(c: Context, options: { guard: A2ARequestGuard; maxBodyBytes: number }): Promise<Authentication> {
  const body = await readBodyText(c, options.maxBodyBytes);
  const url = new URL(c.req.url);
  try {
    const caller = await options.guard.authenticate({
      method: c.req.method,
      path: `${url.pathname}${url.search}`,
      body,
      header: (name) => requestHeader(c, name),
    });
    return { caller, body };
  } catch (error) {
    // Tell a standard client how to sign (RFC 9110 §11.6.1), with the 401.
    if (FrameworkError.isInstance(error) && error.code === 'signature_invalid')
      return { refusal: errorResponse(error, { 'WWW-Authenticate': WWW_AUTHENTICATE }) };
    throw error;
  }
}

/** The SDK's user for an admitted caller (the SDK scopes tasks by it). */
export function callerUser(caller: AdmittedCaller): User {
  return new AgentUser(caller.agent);
}

/** The SDK's call context for an admitted request: the caller as user (task scoping), version, extensions, tenant. */
export function callContext(
  c: Context,
  caller: AdmittedCaller,
  options: { tenant?: string; extensionsHeader?: string; version?: string } = {},
): ServerCallContext {
  return callContextFrom((name) => requestHeader(c, name), caller, options);
}

/** {@link callContext} of a request whose headers `header` reads (a route below Hono). */
export function callContextFrom(
  header: (name: string) => string | undefined,
  caller: AdmittedCaller,
  options: { tenant?: string; extensionsHeader?: string; version?: string } = {},
): ServerCallContext {
  return new ServerCallContext({
    user: callerUser(caller),
    requestedVersion: options.version ?? header(A2A_VERSION_HEADER) ?? ABSENT_VERSION,
    requestedExtensions: Extensions.parseServiceParameter(header(options.extensionsHeader ?? 'A2A-Extensions')),
    ...(options.tenant ? { tenant: options.tenant } : {}),
  });
}

/**
 * What the policy sees of a JSON-RPC request: for a send, the message's text
 * parts (or its data parts as JSON); for anything else, the method name.
 */
export function messageOf(rpc: unknown): string {
  if (!isPlainObject(rpc)) return '';
  const params = rpc.params;
  const message = isPlainObject(params) ? params.message : undefined;
  if (isPlainObject(message) && Array.isArray(message.parts)) {
    const texts: string[] = [];
    for (const part of message.parts) {
      if (!isPlainObject(part)) continue;
      if (typeof part.text === 'string') texts.push(part.text);
      else if (part.data !== undefined) texts.push(JSON.stringify(part.data));
    }
    return texts.join('\n');
  }
  return typeof rpc.method === 'string' ? rpc.method : '';
}
