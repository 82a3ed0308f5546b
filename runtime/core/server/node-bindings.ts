import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';
import { LazyAbortController } from '../abort.js';

export interface NodeBindings {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

/**
 * The Node request and response behind a Hono context when it is served by
 * @hono/node-server; `undefined` under `app.request()` or another runtime.
 * The hot paths use them to avoid building Web `Request`/`ReadableStream`
 * objects, which are costly in Node 20.
 */
export function nodeBindings(c: Context): NodeBindings | undefined {
  const env = c.env as Partial<NodeBindings> | undefined;
  return env?.incoming && env.outgoing ? { incoming: env.incoming, outgoing: env.outgoing } : undefined;
}

/** An AbortController that fires when the client's connection goes away before the answer is complete. */
export function clientAbort(c: Context): LazyAbortController {
  const node = nodeBindings(c);
  if (node) return nodeClientAbort(node.outgoing);
  const controller = new LazyAbortController();
  const signal = c.req.raw.signal;
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  return controller;
}

const CLIENT_ABORT = Symbol('client abort');
type Aborting = ServerResponse & { [CLIENT_ABORT]?: LazyAbortController };

/** Aborts the controller of a response (`this`) that closed before it finished. */
function abortOnClose(this: Aborting): void {
  if (!this.writableFinished) this[CLIENT_ABORT]?.abort(new Error('client disconnected'));
}

/** {@link clientAbort} of a Node response. */
export function nodeClientAbort(outgoing: ServerResponse): LazyAbortController {
  const controller = new LazyAbortController();
  const response = outgoing as Aborting;
  if (response[CLIENT_ABORT]) {
    // A second controller for the same response (not on the usual paths): a listener of its own.
    outgoing.once('close', () => {
      if (!outgoing.writableFinished) controller.abort(new Error('client disconnected'));
    });
    return controller;
  }
  // One shared listener (a response closes once): no closure, no once-wrapper per request.
  response[CLIENT_ABORT] = controller;
  outgoing.on('close', abortOnClose);
  return controller;
}

/**
 * A request header, read from the Node request when there is one (building
 * Hono's Web `Headers` object costs more than the rest of a small request).
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const node = nodeBindings(c);
  if (!node) return c.req.header(name);
  const value = node.incoming.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}
