/**
 * The cost of a policy-gated tool call: the same request ("buy 100 of ACME",
 * one `place_trade` call that the trading policy allows) through the tool
 * loop of `registerToolAgentTask`, with the same in-process scripted model
 * (the trader's rules): ungated; with every call asked of the Guardian (our
 * policy engine behind it, both on this machine); and with the Guardian's
 * policy bundle evaluated in process (`decide: 'local'`), in the same run. Prints p50/p99 per request and the added milliseconds against the
 * target (gating adds ≤ 1 ms p50). Asserts nothing.
 *
 *   npm run bench:tools      (BENCH_REQUESTS=500 by default)
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { FrameworkCore } from '../runtime/core/framework-core.js';
import { TraderRulesModel, traderTools } from '../runtime/examples/trader-agent.js';
import { startGuardian } from '../runtime/guardian/start-guardian.js';
import { KeyRing } from '../runtime/a2a/signing/key-ring.js';
import { createSigningKey } from '../runtime/a2a/signing/signing-key.js';
import { startPolicyServer } from '../runtime/policy/server/start-policy-server.js';
import { registerToolAgentTask } from '../runtime/tools/tool-agent.js';
import { ToolGate } from '../runtime/tools/tool-gate.js';

const POLICIES = fileURLToPath(new URL('../../policies', import.meta.url));
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 500);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

function trader(gate: ToolGate | undefined): FrameworkCore {
  const core = new FrameworkCore();
  const rules = new TraderRulesModel();
  registerToolAgentTask(core, {
    tools: traderTools(),
    ...(gate ? { gate } : {}),
    model: () => ({ llmConfig: { provider: 'ollama', model: 'trader-rules' }, languageModel: rules }),
  });
  return core;
}

async function measure(core: FrameworkCore): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < REQUESTS + 50; i += 1) {
    const started = performance.now();
    let placed = false;
    for await (const response of core.executeTask('route_to_task', { query: 'buy 100 of ACME' })) {
      if (response.type === 'text' && response.text.startsWith('Placed')) placed = true;
    }
    if (!placed) throw new Error(`request ${i}: the trade did not run, so the benchmark would measure nothing`);
    if (i >= 50) times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

const policy = await startPolicyServer({ dir: POLICIES, port: 0, host: '127.0.0.1', watch: false });
// Local decisions verify the bundle's signature: the Guardian signs with the key of the agent "guardian", the gate holds it.
const bundleKey = createSigningKey({ id: 'guardian-1', agent: 'guardian', secret: randomBytes(32) });
const guardian = await startGuardian({ opaUrl: policy.url, port: 0, bundleKey });
try {
  // The trading policy refuses more than 100 calls a minute per agent: the gate's clock moves a second per call, so
  // every measured call is an allowed one (the rate counter is still kept and sent).
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const gateFor = (decide: 'guardian' | 'local') =>
    new ToolGate({
      guardianUrl: guardian.url,
      mode: 'strict',
      agent: { name: 'trader' },
      policies: { place_trade: 'trading' },
      decide,
      bundleKeys: new KeyRing([bundleKey]),
      now: () => (clock += 1000),
    });
  const ungated = await measure(trader(undefined));
  const gated = await measure(trader(gateFor('guardian')));
  const local = await measure(trader(gateFor('local')));
  const row = (name: string, t: number[]) => `  ${name.padEnd(42)} p50 ${percentile(t, 0.5).toFixed(3)} ms   p99 ${percentile(t, 0.99).toFixed(3)} ms`;
  console.log(`tool calls: ${REQUESTS} requests each, one place_trade call per request, scripted in-process model`);
  console.log(row('ungated', ungated));
  console.log(row('gated, asking the Guardian per call', gated));
  console.log(row("gated, the Guardian's bundle in process", local));
  for (const [name, times] of [
    ['asking the Guardian', gated],
    ['bundle in process', local],
  ] as const) {
    const added = percentile(times, 0.5) - percentile(ungated, 0.5);
    console.log(
      `  gating (${name}) adds ${added.toFixed(3)} ms p50 (×${(percentile(times, 0.5) / percentile(ungated, 0.5)).toFixed(1)}); target ≤ 1 ms: ${added <= 1 ? 'met' : 'MISSED'}`,
    );
  }
} finally {
  await guardian.close();
  await policy.close();
}
