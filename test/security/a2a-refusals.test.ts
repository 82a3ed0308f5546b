import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { makeKeys, probeAgent, runProbe, scratchDir, writeCard } from '../a2a/support.js';

// A default agent answered an unsigned A2A client with a bare 401, so a
// third-party client could not learn that it must sign. The 401 now carries
// a WWW-Authenticate challenge naming the scheme and the headers to send.

let scratch: Awaited<ReturnType<typeof scratchDir>>;
let running: RunningAgent;

beforeAll(async () => {
  scratch = await scratchDir();
  const card = await writeCard(scratch.dir, 'probe');
  const keys = makeKeys(['orchestrator', 'probe']);
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
