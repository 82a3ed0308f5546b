/**
 * The tool gate asks the Guardian over `jsonCall` (as the A2A clients do):
 * against peers that misbehave, a redirect is never followed to wherever it
 * points (until 5 Dec the gate's `fetch` followed it, and took the decision
 * of the server it led to), a silent Guardian fails within the gate's
 * timeout with that said, and an endless answer is not held in memory.
 * Real HTTP servers on free ports stand for the misbehaving Guardian.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { JSON_CALL_MAX_BYTES } from '../../runtime/a2a/http-fetch.js';
import { ToolGate } from '../../runtime/tools/tool-gate.js';
import { endlessAnswer, httpPeers } from '../support/net.js';

const peers = httpPeers();
afterAll(() => peers.closeAll());
const serve = peers.serve;

const gate = (guardianUrl: string, timeoutMs = 5000) =>
  new ToolGate({ guardianUrl, mode: 'strict', agent: { name: 'trader' }, policies: { place_trade: 'trading' }, timeoutMs });
const trade = { id: 'c-1', name: 'place_trade', arguments: { symbol: 'ACME', amount: 100 } };

describe('the tool gate asking a misbehaving Guardian', () => {
  it('does not follow a redirect to another server that would allow the call', async () => {
    const asked: string[] = [];
    const elsewhere = await serve((request, response) => {
      asked.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"allow":true,"deny":[],"require_approval":false}');
    });
    const redirecting = await serve((_request, response) => response.writeHead(307, { location: `${elsewhere}/v1/policies/trading/evaluate` }).end());
    const decision = await gate(redirecting).decide(trade);
    expect(decision).toMatchObject({ action: 'deny', decidedBy: 'mode' });
    expect(decision.reasons.join(' ')).toMatch(/strict mode: the Guardian could not be asked/);
    expect(asked).toEqual([]);
  });

  it('says a silent Guardian gave no answer within its timeout', async () => {
    const silent = await serve(() => undefined);
    const started = Date.now();
    const decision = await gate(silent, 300).decide(trade);
    expect(decision).toMatchObject({ action: 'deny', decidedBy: 'mode' });
    expect(decision.reasons.join(' ')).toContain('no answer within 300 ms');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('refuses an endless answer rather than hold it', async () => {
    const endless = await serve(endlessAnswer());
    const decision = await gate(endless, 30_000).decide(trade);
    expect(decision).toMatchObject({ action: 'deny', decidedBy: 'mode' });
    expect(decision.reasons.join(' ')).toContain(`the answer is over ${JSON_CALL_MAX_BYTES} bytes`);
  });
});
