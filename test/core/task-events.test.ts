import { describe, expect, it } from 'vitest';
import { AgentResponse, FrameworkCore } from '../../runtime/index.js';
import { LazyAbortController } from '../../runtime/core/abort.js';
import { createLogger } from '../../runtime/core/logger.js';
import { runTaskForTransport } from '../../runtime/core/task-events.js';
import { isCallbackIterator, type CallbackIterator } from '../../runtime/core/callback-iterator.js';

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const value of iterable) out.push(value);
  return out;
}

/** Reads an iterator through its callbacks (`nextInto`), as the SSE pump does. */
function collectByCallbacks<T>(iterator: CallbackIterator<T>): Promise<T[]> {
  const out: T[] = [];
  return new Promise((resolve, reject) => {
    const pull = (): void =>
      iterator.nextInto((result) => {
        if (result.done) resolve(out);
        else {
          out.push(result.value);
          pull();
        }
      }, reject);
    pull();
  });
}

function recordingLogger(): { logger: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  return { logger: createLogger({ name: 'test', level: 'debug', write: (line) => lines.push(line) }), lines };
}

describe('runTaskForTransport', () => {
  it('passes the responses through in order, then ends', async () => {
    const core = new FrameworkCore();
    core.task({ name: 'route_to_task' }, async function* ({ query }) {
      yield AgentResponse.status('one');
      yield AgentResponse.text(String(query));
      yield AgentResponse.result({ done: true });
    });
    const { logger } = recordingLogger();
    const responses = await collect(runTaskForTransport({ core, query: 'hi', contextId: 'c1', abort: new LazyAbortController(), logger }));
    expect(responses.map((r) => r.type)).toEqual(['status', 'text', 'result']);
    expect(responses[1]).toMatchObject({ text: 'hi' });
  });

  it('turns an unknown task, a throwing task function and a non-response into one final error event, logging only internal failures', async () => {
    const core = new FrameworkCore();
    core.task({ name: 'throws-at-once' }, () => {
      throw new Error('secret detail');
    });
    core.task({ name: 'throws-later' }, async function* () {
      yield AgentResponse.status('started');
      throw new Error('secret detail');
    });
    core.task({ name: 'not-a-response' }, async function* () {
      yield { type: 'status' } as unknown as AgentResponse;
    });
    for (const [task, types, logged] of [
      ['missing', ['error'], 0],
      ['throws-at-once', ['error'], 1],
      ['throws-later', ['status', 'error'], 1],
      ['not-a-response', ['error'], 0],
    ] as const) {
      const { logger, lines } = recordingLogger();
      const responses = await collect(runTaskForTransport({ core, task, query: 'q', contextId: 'c', abort: new LazyAbortController(), logger }));
      expect(
        responses.map((r) => r.type),
        task,
      ).toEqual(types);
      const last = responses.at(-1);
      if (last?.type !== 'error') throw new Error(`${task}: no error event`);
      expect(last.message, task).not.toContain('secret detail');
      expect(
        lines.filter((l) => l.includes('task failed')),
        task,
      ).toHaveLength(logged);
    }
  });

  it('ends quietly when the client aborts, even while the task is stuck, and closes the task', async () => {
    const core = new FrameworkCore();
    let closed = false;
    core.task({ name: 'route_to_task' }, async function* () {
      try {
        yield AgentResponse.status('started');
        yield AgentResponse.status('second');
      } finally {
        closed = true;
      }
    });
    core.task({ name: 'stuck' }, async function* () {
      yield AgentResponse.status('started');
      await new Promise(() => undefined);
    });
    const { logger } = recordingLogger();
    const abort = new LazyAbortController();
    const stuck = runTaskForTransport({ core, task: 'stuck', query: 'q', contextId: 'c', abort, logger });
    expect((await stuck.next()).value).toMatchObject({ type: 'status' });
    const waiting = stuck.next();
    abort.abort(new Error('client left'));
    await expect(waiting).resolves.toMatchObject({ done: true });
    await expect(stuck.next()).resolves.toMatchObject({ done: true });

    // Aborted between two events: the next call ends the stream and closes the task's generator.
    const between = new LazyAbortController();
    const run = runTaskForTransport({ core, query: 'q', contextId: 'c', abort: between, logger });
    expect((await run.next()).value).toMatchObject({ type: 'status', text: 'started' });
    between.abort();
    await expect(run.next()).resolves.toMatchObject({ done: true });
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(true);
  });

  it('closes the task when the consumer stops early, and a task already aborted never starts', async () => {
    const core = new FrameworkCore();
    let started = 0;
    let finalized = false;
    core.task({ name: 'route_to_task' }, async function* () {
      started++;
      try {
        for (let i = 0; ; i++) yield AgentResponse.status(`s${i}`);
      } finally {
        finalized = true;
      }
    });
    const { logger } = recordingLogger();
    for await (const response of runTaskForTransport({ core, query: 'q', contextId: 'c', abort: new LazyAbortController(), logger })) {
      if (response.type === 'status' && response.text === 's2') break;
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(finalized).toBe(true);

    const aborted = new LazyAbortController();
    aborted.abort();
    expect(await collect(runTaskForTransport({ core, query: 'q', contextId: 'c', abort: aborted, logger }))).toEqual([]);
    expect(started).toBe(1);
  });

  it('gives through its callbacks what it gives through next(): the responses, a failure as the last one, then done at once', async () => {
    const core = new FrameworkCore();
    core.task({ name: 'route_to_task' }, async function* ({ query }) {
      yield AgentResponse.status('one');
      yield AgentResponse.text(String(query));
      if (query === 'fail') throw new Error('secret detail');
      yield AgentResponse.result({ done: true });
    });
    const { logger } = recordingLogger();
    for (const query of ['hi', 'fail']) {
      const request = { core, query, contextId: 'c', abort: new LazyAbortController(), logger };
      const byCallbacks = runTaskForTransport(request);
      if (!isCallbackIterator(byCallbacks)) throw new Error('the transport run has no nextInto');
      const called = await collectByCallbacks(byCallbacks);
      expect(called).toEqual(await collect(runTaskForTransport({ ...request, abort: new LazyAbortController() })));
      expect(called.map((r) => r.type)).toEqual(query === 'fail' ? ['status', 'text', 'error'] : ['status', 'text', 'result']);
      // Over: the next call answers done before it returns.
      let after: IteratorResult<AgentResponse, undefined> | undefined;
      byCallbacks.nextInto(
        (result) => (after = result),
        () => undefined,
      );
      expect(after).toEqual({ done: true, value: undefined });
    }
  });
});
