/**
 * Which span is whose child, through tasks, sub-tasks, steps, wrapped
 * iterators and errors, with the real SDK (spans into an in-memory
 * exporter): the instrumentation's helpers keep the context right without an
 * async generator per span, end every span they start (a task that cannot
 * be opened included) and mark the failed ones.
 */
import { createHook } from 'node:async_hooks';
import { context, propagation, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AgentResponse } from '../../../runtime/core/agent-response.js';
import { AbortedError } from '../../../runtime/core/errors/aborted-error.js';
import { UnknownTaskError } from '../../../runtime/core/errors/unknown-task-error.js';
import { FrameworkCore } from '../../../runtime/core/framework-core.js';
import { inSpan, setTracingEnabled, spanIterator, spanOverStream, traceparentOf } from '../../../runtime/core/telemetry/tracing.js';
import { createHelloAgent } from '../../../runtime/examples/hello-agent.js';
import { exportingAtOnce } from '../../support/otel-spans.js';

const exporter = new InMemorySpanExporter();
// Each ended span exported at once, without SimpleSpanProcessor's promises (which the promise count below would include).
const provider = new NodeTracerProvider({ spanProcessors: [exportingAtOnce(exporter)] });

beforeAll(() => {
  provider.register();
  setTracingEnabled(true);
});

afterAll(async () => {
  setTracingEnabled(false);
  await provider.shutdown();
});

beforeEach(() => exporter.reset());

const spans = () => exporter.getFinishedSpans();
const named = (name: string): ReadableSpan => {
  const found = spans().filter((span) => span.name === name);
  expect(found, `one span named ${name}`).toHaveLength(1);
  return found[0]!;
};
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

async function drain<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

describe('tasks and steps', () => {
  it('a routed task is the router task’s child and its steps are its own children, all in the caller’s trace', async () => {
    const { core } = createHelloAgent({ env: {} });
    const responses = await inSpan('request', {}, () => drain(core.openTask('route_to_task', { query: 'two words', contextId: 'c1' })));
    expect(responses.map((response) => response.type)).toEqual(['status', 'status', 'result']);
    const request = named('request');
    const router = named('task route_to_task');
    const echo = named('task echo');
    expect(parentOf(router)).toBe(idOf(request));
    expect(parentOf(echo)).toBe(idOf(router));
    expect(parentOf(named('step count_words'))).toBe(idOf(echo));
    expect(parentOf(named('step remember_turn'))).toBe(idOf(echo));
    expect(new Set(spans().map((span) => span.spanContext().traceId))).toEqual(new Set([request.spanContext().traceId]));
    expect(echo.attributes).toMatchObject({ 'framework.task': 'echo', 'framework.context_id': 'c1' });
    expect(spans().every((span) => span.status.code !== SpanStatusCode.ERROR)).toBe(true);
  });

  it('two tasks run at once keep their steps apart', async () => {
    const { core } = createHelloAgent({ env: {} });
    await Promise.all(['a', 'b'].map((id) => inSpan(`request ${id}`, {}, () => drain(core.executeTask('echo', { query: id, contextId: id })))));
    const tasks = spans().filter((span) => span.name === 'task echo');
    expect(tasks).toHaveLength(2);
    for (const task of tasks) {
      const steps = spans().filter((span) => span.name.startsWith('step ') && parentOf(span) === idOf(task));
      expect(steps.map((span) => span.name).sort()).toEqual(['step count_words', 'step remember_turn']);
      const request = spans().find((span) => idOf(span) === parentOf(task));
      expect(request?.name).toBe(`request ${String(task.attributes['framework.context_id'])}`);
    }
  });

  it('an unknown task throws at once from openTask, and its span ends with the error (no span left open)', () => {
    const core = new FrameworkCore();
    core.task({ name: 'known' }, async function* () {
      yield AgentResponse.text('hi');
    });
    expect(() => core.openTask('nope', { query: 'x' })).toThrow(UnknownTaskError);
    const span = named('task nope');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.events.map((event) => event.name)).toEqual(['exception']);
  });

  it('a task that fails mid-stream ends its span with the error, after its step', async () => {
    const core = new FrameworkCore();
    core.step({ name: 'ok' }, async () => ({ done: true }));
    core.task({ name: 'breaks' }, async function* ({ agent }) {
      yield AgentResponse.status('working');
      await agent.executeStep('ok');
      throw new Error('task broke');
    });
    await expect(drain(core.openTask('breaks', { query: 'x' }))).rejects.toThrow('task broke');
    const task = named('task breaks');
    expect(task.status).toEqual({ code: SpanStatusCode.ERROR, message: 'task broke' });
    expect(parentOf(named('step ok'))).toBe(idOf(task));
    expect(named('step ok').status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it('a failing step is marked failed, and the task that caught it is not', async () => {
    const core = new FrameworkCore();
    core.step({ name: 'fails' }, async () => {
      throw new Error('step broke');
    });
    core.task({ name: 'catches' }, async function* ({ agent }) {
      const outcome = await agent.executeStep('fails').catch((error: Error) => ({ error: error.message }));
      yield AgentResponse.result(outcome);
    });
    await drain(core.openTask('catches', { query: 'x' }));
    expect(named('step fails').status).toEqual({ code: SpanStatusCode.ERROR, message: 'step broke' });
    expect(parentOf(named('step fails'))).toBe(idOf(named('task catches')));
    expect(named('task catches').status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it('a task abandoned after its first response ends its span (not failed) and closes the task', async () => {
    const core = new FrameworkCore();
    let closed = false;
    core.task({ name: 'long' }, async function* () {
      try {
        yield AgentResponse.status('one');
        yield AgentResponse.status('two');
      } finally {
        closed = true;
      }
    });
    for await (const _response of core.openTask('long', { query: 'x' })) break;
    const task = named('task long');
    expect(task.ended).toBe(true);
    expect(task.status.code).toBe(SpanStatusCode.UNSET);
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(true);
  });

  it('an aborted task ends its span failed, between responses or while waiting for one', async () => {
    const core = new FrameworkCore();
    core.task({ name: 'slow' }, async function* ({ signal }) {
      yield AgentResponse.status('started');
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
      yield AgentResponse.status('never seen');
    });
    const between = new AbortController();
    const first = core.openTask('slow', { query: 'x', signal: between.signal });
    await first.next();
    between.abort(new Error('stop between'));
    await expect(first.next()).rejects.toThrow(AbortedError);
    const waiting = new AbortController();
    const second = core.openTask('slow', { query: 'x', signal: waiting.signal });
    await second.next();
    const pending = second.next();
    waiting.abort(new Error('stop waiting'));
    await expect(pending).rejects.toThrow(AbortedError);
    const tasks = spans().filter((span) => span.name === 'task slow');
    expect(tasks).toHaveLength(2);
    for (const task of tasks) expect(task.status.code).toBe(SpanStatusCode.ERROR);
  });
});

describe('iterators', () => {
  async function* counted(work: (i: number) => Promise<void>) {
    for (let i = 0; i < 3; i++) {
      await work(i);
      yield i;
    }
  }

  it('the work behind each next() of a wrapped iterator is the span’s child, and the span ends with the iterator', async () => {
    const stream = spanOverStream('stream', {}, () => counted((i) => inSpan(`item ${i}`, {}, async () => undefined)));
    expect(spans()).toEqual([]);
    expect(await inSpan('outer', {}, () => drain(stream))).toEqual([0, 1, 2]);
    const wrapped = named('stream');
    expect(parentOf(wrapped)).toBe(idOf(named('outer')));
    for (let i = 0; i < 3; i++) expect(parentOf(named(`item ${i}`))).toBe(idOf(wrapped));
    expect(wrapped.ended).toBe(true);
  });

  it('a consumer’s own spans between items are not the iterator’s children', async () => {
    await inSpan('outer', {}, async () => {
      for await (const i of spanIterator('stream', {}, () => counted(async () => undefined))) await inSpan(`consume ${i}`, {}, async () => undefined);
    });
    for (let i = 0; i < 3; i++) expect(parentOf(named(`consume ${i}`))).toBe(idOf(named('outer')));
  });

  it('an iterator that throws ends its span with the error and the error reaches the consumer', async () => {
    const failing = () =>
      counted(async (i) => {
        if (i === 1) throw new RangeError('second item broke');
      });
    await expect(drain(spanIterator('stream', {}, failing))).rejects.toThrow(RangeError);
    expect(named('stream').status).toEqual({ code: SpanStatusCode.ERROR, message: 'second item broke' });
  });

  it('an iterator that cannot be opened throws at once and ends its span failed', () => {
    expect(() =>
      spanIterator('stream', {}, () => {
        throw new TypeError('cannot open');
      }),
    ).toThrow('cannot open');
    expect(named('stream').status).toEqual({ code: SpanStatusCode.ERROR, message: 'cannot open' });
  });
});

describe('what a span costs in promises', () => {
  /** Promises made while `run` runs (the least of a few tries: nothing else of the test's runs at the same time, but a stray one could). */
  async function promisesMade(run: () => Promise<unknown>): Promise<number> {
    let made = 0;
    const hook = createHook({
      init: (_id, type) => {
        if (type === 'PROMISE') made++;
      },
    });
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) {
      made = 0;
      hook.enable();
      await run();
      hook.disable();
      counts.push(made);
    }
    return Math.min(...counts);
  }

  it('a traced task run makes no promise for its task spans (no generator layer, no then per item) and one per step span', async () => {
    const { core } = createHelloAgent({ env: {} });
    const run = () => drain(core.openTask('route_to_task', { query: 'two words', contextId: 'c1' }));
    const traced = await promisesMade(run);
    setTracingEnabled(false);
    const untraced = await promisesMade(run).finally(() => setTracingEnabled(true));
    // Two task spans (the router's, the echo task's) and two step spans (inSpan's then each).
    expect(untraced).toBeGreaterThan(0);
    expect(traced - untraced).toBeLessThanOrEqual(2);
  });
});

describe('traceparentOf', () => {
  it('writes what the registered W3C propagator writes for the same span, and nothing for a span naming no trace', async () => {
    await inSpan('outer', {}, async (span) => {
      const injected: Record<string, string> = {};
      propagation.inject(context.active(), injected);
      expect(traceparentOf(span)).toBe(injected.traceparent);
      expect(traceparentOf(span)).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    });
    expect(traceparentOf(trace.wrapSpanContext({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 }))).toBeUndefined();
  });
});
