/**
 * What an A2A streaming call costs the server in promises. Each promise is
 * paid for twice while tracing is on (the AsyncLocalStorage context manager
 * runs its hooks on every promise of the process), and the SDK's own path is
 * most of them; ours added an async generator around the SDK's stream
 * (`CheckedRequestHandler`) and another around the JSON-RPC answers, several
 * promises per event each.
 */
import { createHook } from 'node:async_hooks';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../runtime/a2a/signing/request-signature.js';
import type { A2AServer } from '../../runtime/a2a/a2a-server.js';
import type { Listening } from '../../runtime/core/server/listen.js';
import { makeKeys, serveProbe } from './support.js';

const keys = makeKeys(['planner', 'probe']);
let server: A2AServer;
let listening: Listening;

beforeAll(async () => {
  const env = { AGENT_NAME: 'probe', A2A_KEYS: keys.json, A2A_VALIDATION_MODE: 'disabled', LOG_LEVEL: 'error' };
  ({ server, listening } = await serveProbe(env));
});

afterAll(async () => {
  await listening?.close();
  await server?.close();
});

/** One signed SendStreamingMessage over node:http with callbacks (the client itself makes no promise): the SSE text. */
function streamCall(i: number): Promise<string> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: i,
    method: 'SendStreamingMessage',
    params: { message: { messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ text: 'stream please' }] } },
  });
  const headers = {
    'content-type': 'application/json',
    'a2a-version': '1.0',
    ...signRequest({ method: 'POST', path: '/rpc/', body, source: 'planner', target: 'probe', key: keys.keys.get('planner')! }),
  };
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${listening.url}/rpc/`, { method: 'POST', headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve(text));
    });
    request.on('error', reject);
    request.end(body);
  });
}

describe('an A2A streaming call', () => {
  it('makes no promise of ours per event around the SDK’s stream', async () => {
    let made = 0;
    const hook = createHook({
      init: (_id, type) => {
        if (type === 'PROMISE') made++;
      },
    });
    const counts: number[] = [];
    for (let i = 0; i < 6; i++) {
      made = 0;
      hook.enable();
      const text = await streamCall(i);
      hook.disable();
      // The task's working status, its text, its result and the completed state, each an SSE event.
      expect(text).toContain('streamed');
      expect(text.match(/^data: /gm)?.length).toBeGreaterThanOrEqual(5);
      counts.push(made);
    }
    // The least of a few calls (the first pays for lazy set-up): 305 with the two generators (5 Dec 2026, Node 20,
    // @a2a-js/sdk 1.0), 265 without; the SDK's own path is most of what is left.
    expect(Math.min(...counts)).toBeLessThanOrEqual(280);
  });
});
