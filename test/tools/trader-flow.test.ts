import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent, type RunningAgent } from '../../runtime/agent/run-agent.js';
import { createTraderAgent } from '../../runtime/examples/trader-agent.js';
import { deleteKeys } from '../support/redis-keys.js';
import { startStack } from '../guardian/stack.js';
import { runCli } from '../support/cli.js';
import { ask, kinds, startSession, texts, uniquePrefix, type Turn } from '../planning/planner-support.js';

// The trading example end to end: our policy engine with the shipped trading.rego, the real Guardian, and two
// trader replicas on the real front door sharing sessions in Redis. No model: the example's rules turn the
// request into the same tool calls a model would ask for, through the same gated loop.

const prefix = uniquePrefix();
let stack: Awaited<ReturnType<typeof startStack>>;
let a: RunningAgent;
let b: RunningAgent;
const redis = new Redis('redis://127.0.0.1:6379');

async function trader(env: Record<string, string>, options: { approvalTtlMs?: number; now?: () => number } = {}): Promise<RunningAgent> {
  const { core, agent } = createTraderAgent({ env: { LOG_LEVEL: 'error', ...env }, ...options });
  return runAgent(core, agent, {
    port: 0,
    a2a: false,
    env: { SESSION_BACKEND: 'kv', SESSION_KV_URL: 'redis://127.0.0.1:6379', KV_PREFIX: prefix, LOG_LEVEL: 'error' },
  });
}

beforeAll(async () => {
  stack = await startStack();
  const env = { GUARDIAN_URL: stack.guardian.url, A2A_VALIDATION_MODE: 'strict' };
  [a, b] = await Promise.all([trader(env), trader(env)]);
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await stack?.close();
  await deleteKeys(redis, prefix);
  await redis.quit();
});

const approvalOf = (turn: Turn) => {
  const last = turn.events.at(-1);
  expect(last?.event).toBe('input_required');
  expect(last?.data.action_type).toBe('tool_approval');
  return last?.data.data as { approval_id: string; tool: string; arguments: Record<string, unknown>; reasons: string[] };
};
const answer = (turn: Turn) => texts(turn, 'text').join('\n');

describe('the trader example through the front door, with the Guardian and trading.rego', () => {
  it('runs a small trade at once, showing the tool call and its result', async () => {
    const token = await startSession(a);
    const turn = await ask(a, 'buy 100 of ACME', token);
    expect(kinds(turn)).toEqual(['status', 'status', 'text']);
    expect(turn.events[0]?.data).toEqual({
      text: 'Calling tool place_trade({"symbol":"ACME","amount":100})…',
      data: { tool: 'place_trade', arguments: { symbol: 'ACME', amount: 100 } },
    });
    expect(turn.events[1]?.data.data).toMatchObject({ tool: 'place_trade', result: { symbol: 'ACME', amount: 100, status: 'placed' } });
    expect(answer(turn)).toMatch(/^Placed order-\d+: 100 USD of ACME\.$/);
  });

  it('refuses a trade over the maximum with the policy reason, and the tool does not run', async () => {
    const token = await startSession(a);
    const turn = await ask(a, 'buy 60000 of ACME', token);
    expect(texts(turn, 'status')[1]).toBe('Tool place_trade refused: amount 60000 is at or above the limit of 50000');
    expect(answer(turn)).toBe("place_trade did not run: tool 'place_trade' failed: refused by policy: amount 60000 is at or above the limit of 50000");
    expect(turn.events.some((e) => e.event === 'input_required')).toBe(false);
  });

  it('asks for approval of a trade in the approval band, and the approval on the other replica runs it', async () => {
    const token = await startSession(a);
    const turn = await ask(a, 'buy 10000 of ACME', token);
    const approval = approvalOf(turn);
    expect(approval).toMatchObject({
      tool: 'place_trade',
      arguments: { symbol: 'ACME', amount: 10000 },
      reasons: ["policy trading requires a person's approval"],
    });
    expect(String(turn.events.at(-1)?.data.text)).toContain('Approval needed: the agent wants to call place_trade');
    const approved = await ask(b, `TOOL_APPROVE ${approval.approval_id}`, token);
    expect(texts(approved, 'status')[0]).toMatch(/^Approved: calling tool place_trade/);
    expect(answer(approved)).toMatch(/^Placed order-\d+: 10000 USD of ACME\.$/);
    // Used once: the same approval again finds nothing waiting.
    const again = await ask(a, `TOOL_APPROVE ${approval.approval_id}`, token);
    expect(kinds(again)).not.toContain('status');
  });

  it('understands an approval in words, in Spanish too', async () => {
    const token = await startSession(b);
    approvalOf(await ask(b, 'compra 20000 de ACME', token));
    const approved = await ask(a, 'sí, adelante', token);
    expect(answer(approved)).toMatch(/20000 USD of ACME/);
  });

  it('a rejection tells the model the person declined; nothing runs', async () => {
    const token = await startSession(a);
    approvalOf(await ask(a, 'buy 10000 of ACME', token));
    const rejected = await ask(b, 'no, cancel it', token);
    expect(texts(rejected, 'status')).toEqual(['Declined: place_trade did not run']);
    expect(answer(rejected)).toBe('place_trade did not run: the person declined this call, so it did not run');
  });

  it('asks again on a reply that decides nothing, and refuses an approval naming another id', async () => {
    const token = await startSession(a);
    const approval = approvalOf(await ask(a, 'buy 10000 of ACME', token));
    const unclear = await ask(b, 'hmm, not sure', token);
    expect(approvalOf(unclear).approval_id).toBe(approval.approval_id);
    expect(String(unclear.events.at(-1)?.data.text)).toMatch(/^A tool call is still waiting for your approval/);
    const wrong = await ask(b, 'TOOL_APPROVE not-this-one', token);
    expect(answer(wrong)).toContain('no longer waiting');
    const approved = await ask(a, `TOOL_APPROVE ${approval.approval_id}`, token);
    expect(answer(approved)).toMatch(/10000 USD of ACME/);
  });

  it('two approvals at the same instant on two replicas run the trade once', async () => {
    const token = await startSession(a);
    const approval = approvalOf(await ask(a, 'buy 10000 of ACME', token));
    const [first, second] = await Promise.all([ask(a, `TOOL_APPROVE ${approval.approval_id}`, token), ask(b, `TOOL_APPROVE ${approval.approval_id}`, token)]);
    const placed = [first, second].filter((turn) => /Placed order/.test(answer(turn)));
    expect(placed).toHaveLength(1);
  });

  it('needs a conversation to ask in: without a session the call is refused, not run', async () => {
    const turn = await ask(a, 'buy 10000 of ACME');
    expect(answer(turn)).toContain('has no conversation to ask in');
  });
});

describe('approvals expire', () => {
  it('an approval after its time runs nothing and says so; a new request then starts afresh', async () => {
    let clock = Date.parse('2026-06-01T12:00:00Z');
    const agent = await trader({ GUARDIAN_URL: stack.guardian.url }, { approvalTtlMs: 60_000, now: () => clock });
    try {
      const token = await startSession(agent);
      approvalOf(await ask(agent, 'buy 10000 of ACME', token));
      clock += 60_001;
      const late = await ask(agent, 'yes', token);
      expect(answer(late)).toBe('That approval request expired, so the call did not run. Ask again if you still want it.');
      expect(kinds(late)).toEqual(['text']);
      const fresh = await ask(agent, 'buy 100 of ACME', token);
      expect(answer(fresh)).toMatch(/^Placed order-\d+: 100 USD of ACME\.$/);
    } finally {
      await agent.close();
    }
  });
});

describe('Guardian unavailable: the validation mode decides, as for A2A calls', () => {
  const down = 'http://127.0.0.1:9'; // nothing listens on the discard port

  it.each([
    ['strict', /place_trade did not run: tool 'place_trade' failed: refused by policy: strict mode: the Guardian could not be asked/],
    ['permissive', /^Placed order-\d+: 10000 USD of ACME\.$/],
    ['disabled', /^Placed order-\d+: 10000 USD of ACME\.$/],
  ])('%s', async (mode, expected) => {
    const agent = await trader({ GUARDIAN_URL: down, A2A_VALIDATION_MODE: mode });
    try {
      const token = await startSession(agent);
      expect(answer(await ask(agent, 'buy 10000 of ACME', token))).toMatch(expected);
    } finally {
      await agent.close();
    }
  });
});

describe('framework-cli chat with the trader', () => {
  it('--message asks for approval, --approve sends TOOL_APPROVE with its id and the trade runs; --reject on the next one declines', async () => {
    const home = await mkdtemp(join(tmpdir(), 'fw-chat-trader-'));
    const chat = async (args: string[]) => {
      const result = await runCli(['chat', a.url, ...args, '--json'], { env: { XDG_CONFIG_HOME: home }, timeoutMs: 30_000 });
      expect(result.code).toBe(0);
      return result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { event: string; data?: Record<string, unknown> });
    };
    try {
      const asked = await chat(['--message', 'buy 10000 of ACME']);
      const question = asked.find((line) => line.event === 'input_required');
      expect(question?.data).toMatchObject({ action_type: 'tool_approval', data: { tool: 'place_trade', arguments: { symbol: 'ACME', amount: 10000 } } });
      const approved = await chat(['--approve']);
      expect(approved.filter((line) => line.event === 'text').map((line) => line.data?.text)).toEqual([
        expect.stringMatching(/^Placed order-\d+: 10000 USD of ACME\.$/),
      ]);
      await chat(['--message', 'buy 20000 of ACME']);
      const rejected = await chat(['--reject']);
      expect(rejected.filter((line) => line.event === 'text').map((line) => line.data?.text)).toEqual([
        'place_trade did not run: the person declined this call, so it did not run',
      ]);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 90_000);
});
