/**
 * Benchmark of one agent-to-agent hop: latency and sequential calls/s of
 *
 *  (a) `agentConnection`, validated and signed: the caller asks the Guardian
 *      (strict), signs, the executor verifies the signature and asks the
 *      Guardian again, then runs the task (two policy round trips per call);
 *  (b) the official SDK client's plain `sendMessage` to the same executor code
 *      started with validation disabled and A2A_ACCEPT_UNSIGNED (no checks);
 *  (b') the same plain client with `sendMessageStream`, the transport
 *      `agentConnection` uses, so (a) can also be compared like for like;
 *  (c) `agentConnection` signed but with A2A_VALIDATION_MODE=disabled on both
 *      sides (signature only), so the cost of the policy round trips shows
 *      as (a) − (c).
 *
 *   npm run bench:a2a        (BENCH_A2A_CALLS=300 BENCH_A2A_WARMUP=30 by default)
 *
 * Everything runs in this one process (policy engine, Guardian, three
 * executors, the callers), sequentially: one call at a time, so the figures
 * are latency, not throughput under load. Reference (not measured here): the
 * Python A2A SDK does a trivial hop in about 2.2 ms p50 on a similar machine.
 * Prints figures; asserts nothing.
 */
import { fileURLToPath } from 'node:url';
import type { AgentCard } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { userMessage } from '../runtime/a2a/a2a-parts.js';
import { A2AResponse } from '../runtime/a2a/a2a-response.js';
import type { A2AChunk } from '../runtime/a2a/a2a-chunk.js';
import { agentConnection } from '../runtime/a2a/agent-connection.js';
import { loadAgentCard } from '../runtime/a2a/agent-card.js';
import { KeyRing } from '../runtime/a2a/signing/key-ring.js';
import { createSigningKey, decodeSecret, generateSecret } from '../runtime/a2a/signing/signing-key.js';
import { getValidator, type A2AValidator } from '../runtime/a2a/validator.js';
import type { RunningAgent } from '../runtime/agent/run-agent.js';
import { createExecutorAgent } from '../runtime/examples/executor-agent.js';
import { startGuardian } from '../runtime/guardian/start-guardian.js';
import { startPolicyServer } from '../runtime/policy/server/start-policy-server.js';
import { runAgent } from '../runtime/agent/run-agent.js';

const CALLS = Number(process.env.BENCH_A2A_CALLS ?? 300);
const WARMUP = Number(process.env.BENCH_A2A_WARMUP ?? 30);
const POLICIES = fileURLToPath(new URL('../../policies', import.meta.url));
const PLANNER_CARD = fileURLToPath(new URL('../../agent_cards/planner.json', import.meta.url));
const ACTION = 'Book the room';
const OUTCOME = `Done: ${ACTION}`;

interface Figures {
  p50: number;
  p99: number;
  perSecond: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

/** Runs `call` WARMUP times, then CALLS times one after another; latencies in ms. */
async function measure(call: () => Promise<void>): Promise<Figures> {
  for (let i = 0; i < WARMUP; i++) await call();
  const samples = new Array<number>(CALLS);
  const start = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) {
    const t0 = process.hrtime.bigint();
    await call();
    samples[i] = Number(process.hrtime.bigint() - t0) / 1e6;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99), perSecond: CALLS / seconds };
}

/** The example executor in this process on a free port, A2A only. */
async function executor(env: Record<string, string>): Promise<RunningAgent & { card: AgentCard }> {
  const { core, agent } = createExecutorAgent();
  const running = await runAgent(core, agent, { port: 0, mode: 'a2a', env: { LOG_LEVEL: 'error', ...env } });
  if (!running.card) throw new Error('the executor serves no agent card');
  return running as RunningAgent & { card: AgentCard };
}

/** One `agentConnection` hop; throws unless the outcome is the expected one. */
async function hop(source: AgentCard, target: AgentCard, options: { validator: A2AValidator; keys: KeyRing }): Promise<void> {
  const chunks: A2AChunk[] = [];
  for await (const chunk of agentConnection(source, target, ACTION, { ...options, keyId: 'planner-1' })) chunks.push(chunk);
  const outcome = A2AResponse.outcome(A2AResponse.fromResults(chunks));
  if (outcome !== OUTCOME) throw new Error(`unexpected outcome: ${outcome}`);
}

async function plainSend(client: Client): Promise<void> {
  const answer = await client.sendMessage({ tenant: '', message: userMessage({ payload: ACTION }), configuration: undefined, metadata: undefined });
  if (!JSON.stringify(answer).includes(OUTCOME)) throw new Error('unexpected answer to sendMessage');
}

async function plainStream(client: Client): Promise<void> {
  let seen = false;
  for await (const event of client.sendMessageStream({
    tenant: '',
    message: userMessage({ payload: ACTION }),
    configuration: undefined,
    metadata: undefined,
  })) {
    if (JSON.stringify(event).includes(OUTCOME)) seen = true;
  }
  if (!seen) throw new Error('unexpected answer to sendMessageStream');
}

function row(label: string, f: Figures): string {
  return `${label.padEnd(58)} p50 ${f.p50.toFixed(2).padStart(6)} ms   p99 ${f.p99.toFixed(2).padStart(6)} ms   ${f.perSecond.toFixed(0).padStart(6)} calls/s`;
}

async function main(): Promise<void> {
  const secret = generateSecret();
  const keysJson = JSON.stringify({ keys: [{ id: 'planner-1', agent: 'planner', secret }] });
  const keys = new KeyRing([createSigningKey({ id: 'planner-1', agent: 'planner', secret: decodeSecret(secret)! })]);
  const [planner] = await loadAgentCard(PLANNER_CARD);

  const policy = await startPolicyServer({ dir: POLICIES, port: 0, host: '127.0.0.1', watch: false });
  const guardian = await startGuardian({ opaUrl: policy.url, port: 0 });
  const closers: Array<() => Promise<void>> = [() => policy.close(), () => guardian.close()];
  try {
    const checked = await executor({ A2A_KEYS: keysJson, A2A_VALIDATION_MODE: 'strict', GUARDIAN_URL: guardian.url });
    const open = await executor({ A2A_VALIDATION_MODE: 'disabled', A2A_ACCEPT_UNSIGNED: 'true' });
    const signedOnly = await executor({ A2A_KEYS: keysJson, A2A_VALIDATION_MODE: 'disabled' });
    closers.push(
      () => checked.close(),
      () => open.close(),
      () => signedOnly.close(),
    );

    const strict = getValidator({ env: { GUARDIAN_URL: guardian.url, A2A_VALIDATION_MODE: 'strict' } });
    const disabled = getValidator({ env: { A2A_VALIDATION_MODE: 'disabled' } });
    const client = await new ClientFactory({ transports: [new JsonRpcTransportFactory({})] }).createFromAgentCard(open.card);

    console.log(`A2A hop: executor example task, ${CALLS} sequential calls after ${WARMUP} warm-up, all in one process (node ${process.version})`);
    const a = await measure(() => hop(planner, checked.card, { validator: strict, keys }));
    const b = await measure(() => plainSend(client));
    const bStream = await measure(() => plainStream(client));
    const c = await measure(() => hop(planner, signedOnly.card, { validator: disabled, keys }));

    console.log(row('(a)  agentConnection, strict via Guardian, signed', a));
    console.log(row('(b)  SDK sendMessage, no validation, unsigned', b));
    console.log(row("(b') SDK sendMessageStream, no validation, unsigned", bStream));
    console.log(row('(c)  agentConnection, validation disabled, signed', c));
    const ratio = (x: Figures, y: Figures) => `p50 ×${(x.p50 / y.p50).toFixed(2)}, calls/s ×${(x.perSecond / y.perSecond).toFixed(2)}`;
    console.log(`overhead (a)/(b):   ${ratio(a, b)}`);
    console.log(`overhead (c)/(b):   ${ratio(c, b)}`);
    console.log(`overhead (a)/(b'):  ${ratio(a, bStream)}   (same streaming transport)`);
    console.log(`policy round trips (a)−(c): ${(a.p50 - c.p50).toFixed(2)} ms p50 per call (two Guardian → policy engine decisions)`);
    console.log('reference: Python A2A SDK ~2.2 ms p50 for a trivial hop');
  } finally {
    for (const close of closers.reverse()) await close();
  }
}

await main();
