import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent, type RunningAgent } from '../../runtime/agent/run-agent.js';
import { FrameworkCore } from '../../runtime/core/framework-core.js';
import { createTraderAgent, traderTools } from '../../runtime/examples/trader-agent.js';
import type { ChatRequest, ChatResult, LanguageModel } from '../../runtime/llm/language-model.js';
import { registerToolAgentTask } from '../../runtime/tools/tool-agent.js';
import { ToolGate } from '../../runtime/tools/tool-gate.js';
import { startPolicyServer } from '../../runtime/policy/server/start-policy-server.js';
import { POLICIES_DIR, post, startStack, validationInput } from '../guardian/stack.js';
import { ask, startSession, texts, type Turn } from '../planning/planner-support.js';

// Issue 33, numbers: `buy 1<400 zeros> of ACME` (or a model answering a tool
// call with "amount": 1e400) placed the order with no refusal and no
// approval: JSON parsing gave Infinity, the tool's schema took it, the gate
// left the non-finite amount out of the policy input, and trading.rego,
// seeing no amount, neither denied nor asked. Each step now refuses.

const HUGE = `1${'0'.repeat(400)}`;
let stack: Awaited<ReturnType<typeof startStack>>;
let trader: RunningAgent;

beforeAll(async () => {
  stack = await startStack();
  const { core, agent } = createTraderAgent({ env: { LOG_LEVEL: 'error', GUARDIAN_URL: stack.guardian.url, A2A_VALIDATION_MODE: 'strict' } });
  trader = await runAgent(core, agent, { port: 0, a2a: false, env: { LOG_LEVEL: 'error' } });
});

afterAll(async () => {
  await trader?.close();
  await stack?.close();
});

const answer = (turn: Turn) => texts(turn, 'text').join('\n');

/** A model that asks for one tool call with the given JSON text as arguments, then repeats what the tool answered. */
class OneCallModel implements LanguageModel {
  readonly provider = 'scripted';
  readonly baseUrl = 'scripted:';
  constructor(private readonly argumentsText: string) {}
  async chat(request: ChatRequest): Promise<ChatResult> {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { text: `tool said: ${last.content}`, model: 'scripted', finishReason: 'stop' };
    return { text: '', toolCalls: [{ id: 'call-1', name: 'place_trade', arguments: this.argumentsText }], model: 'scripted', finishReason: 'tool_calls' };
  }
  async *chatStream(request: ChatRequest): AsyncIterable<string> {
    yield (await this.chat(request)).text;
  }
}

describe('numbers that reach a policy (issue 33)', () => {
  it('refuses "buy 1<400 zeros> of ACME" before the gate: no order, and the reason', async () => {
    const token = await startSession(trader);
    const turn = await ask(trader, `buy ${HUGE} of ACME`, token);
    expect(answer(turn)).not.toMatch(/Placed order/);
    expect(answer(turn)).toContain("place_trade did not run: invalid arguments for 'place_trade': arguments.amount is not a finite number");
    expect(turn.events.some((event) => event.event === 'input_required')).toBe(false);
  });

  it('gives a model that answers a tool call with "amount": 1e400 the error, and never runs the tool', async () => {
    const orders: { symbol: string; amount: number; id: string }[] = [];
    const core = new FrameworkCore();
    const gate = new ToolGate({ guardianUrl: stack.guardian.url, mode: 'strict', agent: { name: 'numbers-trader' }, policies: { place_trade: 'trading' } });
    registerToolAgentTask(core, {
      tools: traderTools(orders),
      gate,
      model: () => ({ llmConfig: { provider: 'ollama', model: 'scripted' }, languageModel: new OneCallModel('{"symbol":"ACME","amount":1e400}') }),
    });
    const events = [];
    for await (const response of core.executeTask('route_to_task', { query: 'buy', contextId: 'numbers-ctx' })) events.push(response);
    expect(orders).toEqual([]);
    const final = events.at(-1);
    expect(final?.type).toBe('text');
    expect(final?.type === 'text' ? final.text : '').toContain('arguments.amount is not a finite number');
  });

  it('the gate denies, in every mode, a call whose amount it cannot pass to the policy, rather than leave the field out', async () => {
    for (const mode of ['strict', 'permissive'] as const) {
      const gate = new ToolGate({ guardianUrl: stack.guardian.url, mode, agent: { name: 'numbers-trader' }, policies: { place_trade: 'trading' } });
      const infinite = await gate.decide({ id: 'c1', name: 'place_trade', arguments: { symbol: 'ACME', amount: Number.POSITIVE_INFINITY } });
      expect(infinite).toMatchObject({ action: 'deny', decidedBy: 'unreadable' });
      expect(infinite.reasons.join()).toContain('argument amount is not a finite number');
      const text = await gate.decide({ id: 'c2', name: 'place_trade', arguments: { symbol: 'ACME', amount: '10000' } });
      expect(text).toMatchObject({ action: 'deny', decidedBy: 'unreadable' });
      const nested = await gate.decide({ id: 'c3', name: 'place_trade', arguments: { symbol: 'ACME', amount: 10, legs: [{ qty: Number.NaN }] } });
      expect(nested).toMatchObject({ action: 'deny', reasons: ['argument legs[0].qty is not a finite number, so the policy cannot judge this call'] });
    }
  });

  it('trading.rego denies a trade it cannot judge: no amount', async () => {
    const response = await post(`${stack.guardian.url}/v1/policies/trading/evaluate`, {
      source_agent: { name: 'trader' },
      target_agent: { name: 'place_trade' },
      action: 'place_trade',
      metadata: { requests_last_minute: 1, arguments: { symbol: 'ACME' } },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      allow: false,
      deny: ['a trade needs an amount that is a number, and this one has none'],
      require_approval: false,
    });
  });

  it('the Guardian refuses with a 400 a domain input holding 1e400 anywhere, rather than pass it on as null', async () => {
    const body = `{"source_agent":{"name":"trader"},"target_agent":{"name":"place_trade"},"action":"place_trade","amount":100,"metadata":{"requests_last_minute":1,"arguments":{"amount":1e400}}}`;
    const response = await post(`${stack.guardian.url}/v1/policies/trading/evaluate`, undefined, { raw: body });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('metadata.arguments.amount'),
    });
    const amount = await post(`${stack.guardian.url}/v1/policies/trading/evaluate`, undefined, { raw: body.replace('"amount":100', '"amount":1e400') });
    expect(amount.status).toBe(400);
  });

  it('the A2A validation input refuses 1e400 with a 400', async () => {
    const raw = JSON.stringify(validationInput('planner', 'executor')).replace(/"message_length":\d+/, '"message_length":1e400');
    const response = await post(`${stack.guardian.url}/v1/a2a/validate`, undefined, { raw });
    expect(response.status).toBe(400);
  });

  it('the policy server keeps 1e400 in its input exact, so trading.rego denies it with the exact number', async () => {
    const response = await post(`${stack.policy.url}/v1/data/trading/deny`, undefined, {
      raw: `{"input":{"action":"place_trade","amount":1e400,"metadata":{"requests_last_minute":1}}}`,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ result: ['amount 1e400 is at or above the limit of 50000'] });
  });

  it('the policy server refuses with a 400, rather than fail with a 500, data holding 1e400', async () => {
    const writable = await startPolicyServer({ dir: POLICIES_DIR, port: 0, host: '127.0.0.1', watch: false, allowWrites: true });
    try {
      const put = await fetch(`${writable.url}/v1/data/limits`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"max": 1e400}' });
      expect(put.status).toBe(400);
      expect(await put.json()).toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining('at max') });
      expect(await (await fetch(`${writable.url}/v1/data/limits`)).json()).toEqual({});
    } finally {
      await writable.close();
    }
  });
});
