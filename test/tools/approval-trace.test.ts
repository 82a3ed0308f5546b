/**
 * An approval wait in the traces: the request that resumes a gated tool call
 * gets an `approval.granted` / `approval.denied` / `approval.expired` event
 * (who decided, the wait in ms) and a link to the span that asked, in the
 * earlier request's trace; no span stays open across the wait. The trader
 * example on the real front door with the real Guardian and trading.rego;
 * spans from the real SDK into an in-memory exporter.
 */
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runAgent, type RunningAgent } from '../../runtime/agent/run-agent.js';
import { setTracingEnabled } from '../../runtime/core/telemetry/tracing.js';
import { createTraderAgent } from '../../runtime/examples/trader-agent.js';
import { startStack } from '../guardian/stack.js';
import { ask, startSession, uniquePrefix, type Turn } from '../planning/planner-support.js';
import { deleteKeys } from '../support/redis-keys.js';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const prefix = uniquePrefix();
const redis = new Redis('redis://127.0.0.1:6379');
let stack: Awaited<ReturnType<typeof startStack>>;
let clock = Date.parse('2026-06-01T12:00:00Z');
let trader: RunningAgent;

beforeAll(async () => {
  provider.register();
  setTracingEnabled(true);
  stack = await startStack();
  const { core, agent } = createTraderAgent({
    env: { LOG_LEVEL: 'error', GUARDIAN_URL: stack.guardian.url, A2A_VALIDATION_MODE: 'strict' },
    approvalTtlMs: 60_000,
    now: () => clock,
  });
  trader = await runAgent(core, agent, {
    port: 0,
    a2a: false,
    env: { SESSION_BACKEND: 'kv', SESSION_KV_URL: 'redis://127.0.0.1:6379', KV_PREFIX: prefix, LOG_LEVEL: 'error' },
  });
});

afterAll(async () => {
  setTracingEnabled(false);
  await trader?.close();
  await stack?.close();
  await deleteKeys(redis, prefix);
  await redis.quit();
  await provider.shutdown();
});

beforeEach(() => exporter.reset());

const approvalId = (turn: Turn) => (turn.events.at(-1)?.data.data as { approval_id: string }).approval_id;
const withEvent = (name: string) => exporter.getFinishedSpans().filter((span) => span.events.some((event) => event.name === name));
const traceOf = (span: ReadableSpan) => span.spanContext().traceId;

/** Asks for a trade that needs approval; returns its id and the spans of the asking request. */
async function askForApproval(token: string): Promise<{ id: string; asking: ReadableSpan[] }> {
  const turn = await ask(trader, 'buy 10000 of ACME', token);
  const asking = exporter.getFinishedSpans();
  // The pause is an event on the tool's span, which has ended: nothing waits in an open span.
  expect(withEvent('approval.requested').map((span) => span.name)).toEqual(['execute_tool place_trade']);
  exporter.reset();
  return { id: approvalId(turn), asking };
}

/** The one span of the resuming request with `event`, its event and its link; checks the link leads to the asking request. */
function resumed(event: string, asking: ReadableSpan[], id: string) {
  const spans = withEvent(event);
  expect(spans).toHaveLength(1);
  const span = spans[0]!;
  const recorded = span.events.find((e) => e.name === event)!;
  expect(span.links).toHaveLength(1);
  const link = span.links[0]!;
  const asker = asking.find((s) => s.spanContext().spanId === link.context.spanId);
  expect(asker, 'the link names a span of the asking request').toBeDefined();
  expect(traceOf(asker!)).toBe(link.context.traceId);
  expect(traceOf(asker!)).not.toBe(traceOf(span));
  expect(asking.some((s) => s.kind === SpanKind.SERVER && traceOf(s) === link.context.traceId)).toBe(true);
  expect(recorded.attributes?.['framework.approval.id']).toBe(id);
  expect(link.attributes?.['framework.link.reason']).toBe('approval.requested');
  return recorded.attributes!;
}

describe('approval waits in the trace', () => {
  it('approved: approval.granted by the person, with the wait in ms and a link to the span that asked', async () => {
    const token = await startSession(trader);
    const { id, asking } = await askForApproval(token);
    clock += 4_000;
    await ask(trader, `TOOL_APPROVE ${id}`, token);
    expect(resumed('approval.granted', asking, id)).toMatchObject({ 'framework.decided_by': 'person', 'framework.approval.wait_ms': 4_000 });
  });

  it('rejected: approval.denied by the person', async () => {
    const token = await startSession(trader);
    const { id, asking } = await askForApproval(token);
    clock += 1_500;
    await ask(trader, 'no, cancel it', token);
    expect(resumed('approval.denied', asking, id)).toMatchObject({ 'framework.decided_by': 'person', 'framework.approval.wait_ms': 1_500 });
  });

  it('past its time: approval.expired, decided by the expiry', async () => {
    const token = await startSession(trader);
    const { id, asking } = await askForApproval(token);
    clock += 60_001;
    await ask(trader, 'yes', token);
    expect(resumed('approval.expired', asking, id)).toMatchObject({ 'framework.decided_by': 'expiry', 'framework.approval.wait_ms': 60_001 });
    expect(withEvent('approval.granted')).toEqual([]);
  });
});
