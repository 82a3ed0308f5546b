import { AgentCard } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { signingFetch } from '../../runtime/a2a/signing-fetch.js';
import { makeKeys, probeAgent, runProbe, scratchDir, writeCard } from '../a2a/support.js';

// A default agent answered an unsigned A2A client with a bare 401, so a
// third-party client could not learn that it must sign. The 401 now carries
// a WWW-Authenticate challenge naming the scheme and the headers to send.

let scratch: Awaited<ReturnType<typeof scratchDir>>;
let running: RunningAgent;
let keys: ReturnType<typeof makeKeys>;

beforeAll(async () => {
  scratch = await scratchDir();
  const card = await writeCard(scratch.dir, 'probe');
  keys = makeKeys(['orchestrator', 'probe']);
  const built = probeAgent('probe');
  running = await runProbe(built.core, built.agent, { AGENT_CARD: card, A2A_KEYS: keys.json, A2A_VALIDATION_MODE: 'strict' });
});

afterAll(async () => {
  await running?.close();
  await scratch?.remove();
});

describe('an unsigned A2A request', () => {
  it('gets 401 signature_invalid with a WWW-Authenticate challenge naming the scheme and its headers', async () => {
    const response = await fetch(running.a2aUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}',
    });
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^FW1-HMAC-SHA256 realm="a2a"/);
    for (const header of ['x-framework-agent', 'x-framework-key-id', 'x-framework-timestamp', 'x-framework-nonce', 'x-framework-signature'])
      expect(challenge).toContain(header);
    expect(await response.json()).toMatchObject({ code: 'signature_invalid' });
  });
});

// The card declared no security scheme, so a third-party client could not
// learn from it that requests must be signed; refusals before the SDK (415,
// batches) answered in our own error shape, which a JSON-RPC client cannot read.
describe('the agent card of an agent that requires signatures', () => {
  it('declares the HMAC scheme in securitySchemes and securityRequirements, readable by the official SDK', async () => {
    const response = await fetch(new URL('/.well-known/agent-card.json', running.url));
    const card = (await response.json()) as Record<string, unknown>;
    expect(card.securitySchemes).toMatchObject({ 'fw1-hmac': { httpAuthSecurityScheme: { scheme: 'FW1-HMAC-SHA256' } } });
    const description = (card.securitySchemes as Record<string, { httpAuthSecurityScheme: { description: string } }>)['fw1-hmac']!.httpAuthSecurityScheme
      .description;
    for (const header of ['x-framework-agent', 'x-framework-key-id', 'x-framework-timestamp', 'x-framework-nonce', 'x-framework-signature'])
      expect(description).toContain(header);
    expect(card.securityRequirements).toEqual([{ schemes: { 'fw1-hmac': {} } }]); // an empty scope list, as the SDK writes it
    const parsed = AgentCard.fromJSON(card);
    expect(parsed.securitySchemes['fw1-hmac']?.scheme?.$case).toBe('httpAuthSecurityScheme');
    expect(Object.keys(parsed.securityRequirements[0]?.schemes ?? {})).toEqual(['fw1-hmac']);
  });

  it('is cacheable: Cache-Control max-age, an ETag, and 304 for If-None-Match', async () => {
    const url = new URL('/.well-known/agent-card.json', running.url);
    const first = await fetch(url);
    expect(first.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    const again = await fetch(url, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    const changed = await fetch(url, { headers: { 'if-none-match': '"something-else"' } });
    expect(changed.status).toBe(200);
  });

  it('is not declared by a development agent that accepts unsigned calls', async () => {
    const built = probeAgent('devprobe');
    const dev = await runProbe(built.core, built.agent, { AGENT_CARD: await writeCard(scratch.dir, 'devprobe'), A2A_VALIDATION_MODE: 'disabled' });
    try {
      const card = (await (await fetch(new URL('/.well-known/agent-card.json', dev.url))).json()) as Record<string, unknown>;
      expect(card.securitySchemes).toEqual({});
      expect(card.securityRequirements).toEqual([]);
    } finally {
      await dev.close();
    }
  });
});

describe('requests refused before the SDK reads them', () => {
  it('a wrong content type gets 415 with the A2A ContentTypeNotSupportedError (-32005)', async () => {
    const response = await fetch(running.a2aUrl!, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32005, data: [{ reason: 'CONTENT_TYPE_NOT_SUPPORTED' }] } });
  });

  it('a signed JSON-RPC batch gets 400 with a JSON-RPC -32600 error, and nothing runs', async () => {
    const signed = signingFetch({ source: 'orchestrator', target: 'probe', key: keys.keys.get('orchestrator') });
    const one = { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } };
    const response = await signed(running.a2aUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify([one, { ...one, id: 2 }]),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string } };
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, data: { code: 'invalid_request' } } });
    expect(body.error.message).toMatch(/batch/);
  });
});

describe('a signed call answered with a redirect', () => {
  // A signed request re-sent to wherever a peer points would hand another host
  // a valid signed call (the signature covers the path, not the host).
  it('is not followed: the caller gets agent_http_error naming the redirect, and the other host sees nothing', async () => {
    const { createServer } = await import('node:http');
    let reached = 0;
    const elsewhere = createServer((_req, res) => {
      reached++;
      res.end('{}');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    const redirecting = createServer((_req, res) => {
      const { port } = elsewhere.address() as { port: number };
      res.writeHead(307, { location: `http://127.0.0.1:${port}/` }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = redirecting.address() as { port: number };
      const signed = signingFetch({ source: 'orchestrator', target: 'probe', key: keys.keys.get('orchestrator') });
      const call = signed(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      await expect(call).rejects.toMatchObject({ code: 'agent_http_error', message: expect.stringMatching(/redirect/) as unknown });
      expect(reached).toBe(0);
    } finally {
      redirecting.close();
      elsewhere.close();
    }
  });
});
