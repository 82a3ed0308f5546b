import { describe, expect, it } from 'vitest';
import { AbortedError, AgentResponse, FrameworkCore, FrameworkError, InProcessSessionStore, UnknownStepError, UnknownTaskError } from '../../runtime/index.js';
import { responseToJson } from '../../runtime/core/task-events.js';

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const value of iterable) out.push(value);
  return out;
}

describe('FrameworkCore steps', () => {
  it('registers and executes a step with its arguments', async () => {
    const agent = new FrameworkCore();
    agent.step({ name: 'add' }, async ({ a, b }) => ({ sum: Number(a) + Number(b) }));
    await expect(agent.executeStep('add', { a: 2, b: 3 })).resolves.toEqual({ sum: 5 });
    expect(agent.stepNames).toEqual(['add']);
  });

  it('names the registered steps when asked for an unknown one', async () => {
    const agent = new FrameworkCore();
    agent.step({ name: 'plan' }, async () => ({}));
    agent.step({ name: 'execute_action' }, async () => ({}));
    const error = await agent.executeStep('nope').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownStepError);
    expect((error as UnknownStepError).code).toBe('unknown_step');
    expect((error as Error).message).toContain('plan, execute_action');
  });

  it('rejects a step that does not return a plain object', async () => {
    const agent = new FrameworkCore();
    agent.step({ name: 'bad' }, async () => 'text' as unknown as Record<string, unknown>);
    await expect(agent.executeStep('bad')).rejects.toThrow(/must return a plain object/);
  });

  it('refuses duplicate names and missing names', () => {
    const agent = new FrameworkCore();
    agent.step({ name: 's' }, async () => ({}));
    expect(() => agent.step({ name: 's' }, async () => ({}))).toThrow(/already registered/);
    expect(() => agent.task({ name: '' }, async function* () {})).toThrow(/non-empty string/);
  });

  it('aborts a step waiting on something slow when the signal fires', async () => {
    const agent = new FrameworkCore();
    agent.step({ name: 'slow' }, () => new Promise(() => {}));
    const controller = new AbortController();
    const pending = agent.executeStep('slow', {}, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
  });
});

describe('FrameworkCore tasks', () => {
  it('passes the query through exactly as sent, string or object', async () => {
    const agent = new FrameworkCore();
    const seen: unknown[] = [];
    agent.task({ name: 'capture' }, async function* ({ query, contextId }) {
      seen.push(query, contextId);
      yield AgentResponse.text('ok');
    });
    const object = { text: 'hi', context_id: 'c1', extra: [1] };
    await collect(agent.executeTask('capture', { query: '{"text":"x"}', contextId: 'a' }));
    await collect(agent.executeTask('capture', { query: object }));
    expect(seen[0]).toBe('{"text":"x"}');
    expect(seen[1]).toBe('a');
    expect(seen[2]).toBe(object);
    expect(seen[3]).toBeUndefined();
  });

  it('streams typed responses in order, and route_to_task forwards to another task', async () => {
    const agent = new FrameworkCore();
    agent.task({ name: 'answer', taskId: 't-answer' }, async function* ({ query }) {
      yield AgentResponse.status('working');
      yield AgentResponse.inputRequired('Approve?', { actionType: 'plan_confirmation' });
      yield AgentResponse.result({ echoed: query });
    });
    agent.task({ name: 'route_to_task' }, async function* ({ query, agent: self, contextId, signal }) {
      yield* self.executeTask('answer', { query, contextId, signal });
    });
    expect(agent.entryTask).toBe('route_to_task');
    expect(agent.tasks).toEqual([
      { name: 'answer', taskId: 't-answer' },
      { name: 'route_to_task', taskId: 'route_to_task' },
    ]);
    const responses = await collect(agent.executeTask(agent.entryTask, { query: 'q' }));
    expect(responses).toEqual([
      { type: 'status', text: 'working' },
      { type: 'input_required', text: 'Approve?', actionType: 'plan_confirmation' },
      { type: 'result', data: { echoed: 'q' } },
    ]);
  });

  it('uses the only task as entry, and names the tasks when there is no entry', () => {
    const agent = new FrameworkCore();
    expect(() => agent.entryTask).toThrow(UnknownTaskError);
    agent.task({ name: 'one' }, async function* () {});
    expect(agent.entryTask).toBe('one');
    agent.task({ name: 'two' }, async function* () {});
    expect(() => agent.entryTask).toThrow(/Registered tasks: one, two/);
  });

  it('throws UnknownTaskError naming the registered tasks', async () => {
    const agent = new FrameworkCore();
    agent.task({ name: 'plan' }, async function* () {});
    await expect(collect(agent.executeTask('missing', { query: '' }))).rejects.toThrow(/Unknown task 'missing'. Registered tasks: plan/);
  });

  it('rejects a yielded value that is not an AgentResponse', async () => {
    const agent = new FrameworkCore();
    agent.task({ name: 'bad' }, async function* () {
      yield { type: 'status' } as unknown as AgentResponse;
    });
    const error = await collect(agent.executeTask('bad', { query: '' })).catch((e: unknown) => e);
    expect(FrameworkError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/not an AgentResponse/);
  });

  it('closes the task generator and stops when the signal fires', async () => {
    const agent = new FrameworkCore();
    let finalized = false;
    let taskSignal: AbortSignal | undefined;
    agent.task({ name: 'forever' }, async function* ({ signal }) {
      taskSignal = signal;
      try {
        yield AgentResponse.status('started');
        await new Promise(() => {}); // never settles, ignores the signal
      } finally {
        finalized = true;
      }
    });
    const controller = new AbortController();
    const iterator = agent.executeTask('forever', { query: '', signal: controller.signal });
    await expect(iterator.next()).resolves.toMatchObject({ value: { type: 'status' } });
    const pending = iterator.next();
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
    expect(taskSignal?.aborted).toBe(true);
    // The generator is stuck in an await that ignores the signal; it is abandoned, not awaited.
    expect(finalized).toBe(false);
  });

  it('runs finally blocks of the task when the consumer stops early', async () => {
    const agent = new FrameworkCore();
    let finalized = false;
    agent.task({ name: 'many' }, async function* () {
      try {
        for (let i = 0; ; i++) yield AgentResponse.status(`s${i}`);
      } finally {
        finalized = true;
      }
    });
    for await (const response of agent.executeTask('many', { query: '' })) {
      if (response.type === 'status' && response.text === 's2') break;
    }
    await new Promise((r) => setImmediate(r));
    expect(finalized).toBe(true);
  });
});

describe('FrameworkCore session context', () => {
  it('reads and merges context through the session store', async () => {
    const sessions = new InProcessSessionStore({ ttlSeconds: 60 });
    const agent = new FrameworkCore({ sessions });
    expect(await agent.getSessionContext('c1')).toEqual({});
    await agent.updateSessionContext('c1', { a: 1 });
    expect(await agent.updateSessionContext('c1', { b: 'x' })).toEqual({ a: 1, b: 'x' });
    expect(await agent.getSessionContext('c2')).toEqual({});
    await sessions.close();
  });
});

describe('decorator sugar', () => {
  // Vitest's transformer has no TC39 decorator syntax, so the test applies the
  // decorators as the compiled class does: call each with the method and a
  // context, then run the initializers when an instance is created.
  it('registers class methods as steps and tasks bound to the instance', async () => {
    const agent = new FrameworkCore();
    class Steps {
      factor = 10;
      async scale(args: Readonly<Record<string, unknown>>) {
        return { value: Number(args.value) * this.factor };
      }
      async *scaled({ query }: { query: unknown }) {
        const { value } = await agent.executeStep('scale', { value: Number(query) });
        yield AgentResponse.result({ value });
      }
    }
    const initializers: ((this: unknown) => void)[] = [];
    const context = (name: string) =>
      ({ kind: 'method', name, addInitializer: (f: (this: unknown) => void) => initializers.push(f) }) as unknown as ClassMethodDecoratorContext;
    agent.step({ name: 'scale' })(Steps.prototype.scale as never, context('scale'));
    agent.task({ name: 'scaled', taskId: 'scaled-1' })(Steps.prototype.scaled as never, context('scaled'));
    expect(agent.tasks).toEqual([{ name: 'scaled', taskId: 'scaled-1' }]);

    const instance = new Steps();
    for (const init of initializers) init.call(instance);
    const responses = await collect(agent.executeTask('scaled', { query: '4' }));
    expect(responses).toEqual([{ type: 'result', data: { value: 40 } }]);
  });
});

describe('AgentResponse', () => {
  it('builds each kind and checks its argument types', () => {
    expect(AgentResponse.status('s')).toEqual({ type: 'status', text: 's' });
    expect(AgentResponse.text('t')).toEqual({ type: 'text', text: 't' });
    expect(AgentResponse.result({ a: 1 })).toEqual({ type: 'result', data: { a: 1 } });
    expect(AgentResponse.inputRequired('q')).toEqual({ type: 'input_required', text: 'q' });
    expect(AgentResponse.error('boom')).toEqual({ type: 'error', code: 'task_error', message: 'boom' });
    expect(() => AgentResponse.status(1 as unknown as string)).toThrow(TypeError);
    expect(() => AgentResponse.result([] as unknown as Record<string, unknown>)).toThrow(TypeError);
    expect(AgentResponse.is({ type: 'result', data: {} })).toBe(true);
    expect(AgentResponse.is({ type: 'unknown', text: '' })).toBe(false);
  });

  it('lets input_required carry structured data for clients that draw it, and checks its type', () => {
    const plan = AgentResponse.inputRequired('Approve?', { actionType: 'plan_confirmation', data: { plan_id: 'p1' } });
    expect(plan).toEqual({ type: 'input_required', text: 'Approve?', actionType: 'plan_confirmation', data: { plan_id: 'p1' } });
    expect(responseToJson(plan)).toEqual({ text: 'Approve?', action_type: 'plan_confirmation', data: { plan_id: 'p1' } });
    expect(responseToJson(AgentResponse.inputRequired('q'))).toEqual({ text: 'q' });
    expect(() => AgentResponse.inputRequired('q', { data: ['x'] as unknown as Record<string, unknown> })).toThrow(TypeError);
    expect(AgentResponse.is({ type: 'input_required', text: 'q', data: 'x' })).toBe(false);
    expect(AgentResponse.is({ type: 'input_required', text: 'q', actionType: 1 })).toBe(false);
    expect(AgentResponse.is(plan)).toBe(true);
  });
});

describe('FrameworkError', () => {
  it('recognises instances across module copies by brand', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('framework_core.FrameworkError')]: true, code: 'c' });
    expect(FrameworkError.isInstance(foreign)).toBe(true);
    expect(FrameworkError.isInstance(new Error('x'))).toBe(false);
    expect(new UnknownTaskError({ task: 'a', registered: [] }).toJSON()).toEqual({
      code: 'unknown_task',
      message: "Unknown task 'a'. Registered tasks: (none).",
    });
  });
});

describe('FrameworkCore one-shot conversations', () => {
  it('keeps the context of a one-shot run in process for that run only, sub-tasks included, never in the store', async () => {
    const store = new InProcessSessionStore({ ttlSeconds: 60 });
    const agent = new FrameworkCore({ sessions: store });
    const seen: unknown[] = [];
    agent.task({ name: 'count' }, async function* ({ contextId, oneShot, agent: self }) {
      const id = contextId as string;
      await self.updateSessionContext(id, { turns: 1 });
      seen.push(oneShot, await self.getSessionContext(id), await self.claimSessionContextValue(id, 'turns', 1));
      yield AgentResponse.result({ ok: true });
    });
    // A router that does not pass `oneShot` on: the sub-task is one-shot all the same.
    agent.task({ name: 'route_to_task' }, async function* ({ query, contextId, agent: self }) {
      yield* self.executeTask('count', { query, contextId });
    });
    await collect(agent.executeTask('route_to_task', { query: 'hi', contextId: 'anon-1', oneShot: true }));
    expect(seen).toEqual([true, { turns: 1 }, true]);
    expect(await store.getContext('anon-1')).toEqual({});
    // A conversation that goes on is stored as before.
    await collect(agent.executeTask('route_to_task', { query: 'hi', contextId: 'kept-1' }));
    expect(seen.slice(3)).toEqual([false, { turns: 1 }, true]);
    await agent.updateSessionContext('kept-1', { note: 'stored' });
    expect(await store.getContext('kept-1')).toEqual({ note: 'stored' });
    await store.close();
  });

  it('reads an empty context and claims nothing in a one-shot run before its first write, and keeps what that write stores', async () => {
    const store = new InProcessSessionStore({ ttlSeconds: 60 });
    await store.updateContext('anon-2', { turns: 7 }); // in the store only: a one-shot run must not see it
    const agent = new FrameworkCore({ sessions: store });
    const seen: unknown[] = [];
    agent.task({ name: 'route_to_task' }, async function* ({ contextId, agent: self }) {
      const id = contextId as string;
      seen.push(await self.getSessionContext(id), await self.claimSessionContextValue(id, 'turns', 7));
      seen.push(await self.updateSessionContext(id, { turns: 1 }), await self.getSessionContext(id));
      yield AgentResponse.result({ ok: true });
    });
    await collect(agent.executeTask('route_to_task', { query: 'hi', contextId: 'anon-2', oneShot: true }));
    expect(seen).toEqual([{}, false, { turns: 1 }, { turns: 1 }]);
    expect(await store.getContext('anon-2')).toEqual({ turns: 7 });
    // Once the run is over, the conversation's id reaches the store again.
    expect(await agent.getSessionContext('anon-2')).toEqual({ turns: 7 });
    await store.close();
  });
});
