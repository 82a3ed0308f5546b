/**
 * A plan waiting for confirmation in the traces, as the tool gate's waits: the
 * request that decides it gets an `approval.granted`, `.denied`, `.modified`
 * or `.expired` event (who decided, the wait in ms, the plan id) and a link to
 * the span that proposed it, in the earlier request's trace. Planner replicas
 * on the real front door, sessions in the real Redis, spans from the real SDK
 * into an in-memory exporter.
 */
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { setTracingEnabled } from '../../runtime/core/telemetry/tracing.js';
import { deleteKeys } from '../support/redis-keys.js';
import { waitFor } from '../support/net.js';
import { ask, startPlannerReplica, startSession, uniquePrefix, type PlannerLog, type Turn } from './planner-support.js';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const prefix = uniquePrefix();
const redis = new Redis('redis://127.0.0.1:6379');
const log: PlannerLog = { planned: [], executed: [] };
const SHORT_AGE_MS = 300;
let planner: RunningAgent;
/** A replica whose plans expire after SHORT_AGE_MS. */
let hasty: RunningAgent;

beforeAll(async () => {
  provider.register();
  setTracingEnabled(true);
  [planner, hasty] = await Promise.all([
    startPlannerReplica({ prefix, log }),
    startPlannerReplica({ prefix: `${prefix}hasty:`, log, maxPlanAgeMs: SHORT_AGE_MS }),
  ]);
});

afterAll(async () => {
  setTracingEnabled(false);
  await Promise.all([planner?.close(), hasty?.close()]);
  await deleteKeys(redis, prefix);
  await redis.quit();
  await provider.shutdown();
});

beforeEach(() => exporter.reset());

const planId = (turn: Turn) => (turn.events.at(-1)?.data.data as { plan_id: string }).plan_id;
const withEvent = (name: string) => exporter.getFinishedSpans().filter((span) => span.events.some((event) => event.name === name));
const traceOf = (span: ReadableSpan) => span.spanContext().traceId;
/** The front door's `approvals_pending{kind="plan"}`, read from Redis when scraped. */
const waitingPlans = async () => /^approvals_pending\{kind="plan"\} (\d+)$/m.exec(await (await fetch(`${planner.url}/metrics`)).text())?.[1];

/** Proposes a plan on `agent`; returns its id and the spans of the proposing request. */
async function propose(agent: RunningAgent, token: string): Promise<{ id: string; asking: ReadableSpan[] }> {
  const turn = await ask(agent, 'Book a venue; invite the team', token);
  expect(turn.events.at(-1)?.data.action_type).toBe('plan_confirmation');
  const asking = exporter.getFinishedSpans();
  exporter.reset();
  return { id: planId(turn), asking };
}

/** The one span of the deciding request with `event`; checks its link leads to the proposing request, in another trace. */
function decided(event: string, asking: ReadableSpan[], id: string) {
  const spans = withEvent(event);
  expect(spans).toHaveLength(1);
  const span = spans[0]!;
  expect(span.name).toBe('task route_to_task');
  const recorded = span.events.find((e) => e.name === event)!;
  expect(span.links).toHaveLength(1);
  const link = span.links[0]!;
  const proposer = asking.find((s) => s.spanContext().spanId === link.context.spanId);
  expect(proposer, 'the link names a span of the proposing request').toBeDefined();
  expect(proposer!.name).toBe('task route_to_task');
  expect(traceOf(proposer!)).toBe(link.context.traceId);
  expect(traceOf(proposer!)).not.toBe(traceOf(span));
  expect(asking.some((s) => s.kind === SpanKind.SERVER && traceOf(s) === link.context.traceId)).toBe(true);
  expect(recorded.attributes?.['framework.approval.id']).toBe(id);
  expect(link.attributes?.['framework.link.reason']).toBe('approval.requested');
  return recorded.attributes!;
}

describe('plan confirmation waits in the trace', () => {
  it('approved: approval.granted by the person, with a link to the proposing span; approvals_pending counts the plan while it waits', async () => {
    const token = await startSession(planner);
    const { id, asking } = await propose(planner, token);
    expect(await waitingPlans()).toBe('1');
    await ask(planner, 'yes, go ahead', token);
    expect(await waitingPlans()).toBe('0');
    const attributes = decided('approval.granted', asking, id);
    expect(attributes['framework.decided_by']).toBe('person');
    expect(attributes['framework.approval.wait_ms']).toBeGreaterThanOrEqual(0);
  });

  it('rejected: approval.denied by the person', async () => {
    const token = await startSession(planner);
    const { id, asking } = await propose(planner, token);
    await ask(planner, 'no, cancel it', token);
    expect(decided('approval.denied', asking, id)['framework.decided_by']).toBe('person');
    expect(withEvent('approval.granted')).toEqual([]);
  });

  it('changed: approval.modified on the old plan, and the new plan links to its own proposal', async () => {
    const token = await startSession(planner);
    const { id, asking } = await propose(planner, token);
    const edited = await ask(planner, 'remove step 2', token);
    expect(edited.events.at(-1)?.data.action_type).toBe('plan_confirmation');
    const newId = planId(edited);
    expect(newId).not.toBe(id);
    expect(decided('approval.modified', asking, id)['framework.decided_by']).toBe('person');
    // The edited plan is a new wait, asked by the request that edited it.
    const editing = exporter.getFinishedSpans();
    exporter.reset();
    await ask(planner, 'yes', token);
    decided('approval.granted', editing, newId);
  });

  it('past its age: approval.expired, decided by the expiry, with the wait at least that age', async () => {
    const token = await startSession(hasty);
    const { id, asking } = await propose(hasty, token);
    const executed = log.executed.length;
    const proposed = Date.now();
    await waitFor(async () => Date.now() - proposed > SHORT_AGE_MS, 'the plan to age', 5_000);
    await ask(hasty, 'yes', token);
    const attributes = decided('approval.expired', asking, id);
    expect(attributes['framework.decided_by']).toBe('expiry');
    expect(attributes['framework.approval.wait_ms']).toBeGreaterThan(SHORT_AGE_MS);
    expect(withEvent('approval.granted')).toEqual([]);
    expect(log.executed).toHaveLength(executed);
  });
});
