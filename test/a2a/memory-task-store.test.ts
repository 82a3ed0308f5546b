import { Task, TaskState } from '@a2a-js/sdk';
import { InMemoryTaskStore, ServerCallContext } from '@a2a-js/sdk/server';
import { describe, expect, it } from 'vitest';
import { MemoryTaskStore } from '../../runtime/a2a/memory-task-store.js';
import { allPages, caller, FIVE, ids, LIST_CASES, listRequest, makeTask, planner, withoutTokens } from './task-fixtures.js';

// The SDK's InMemoryTaskStore, which agents used, kept every task until the
// process ended: a long-running agent's memory grew with every call it ever
// answered. MemoryTaskStore forgets tasks after the session TTL and past a bound.

/** A store on a clock the test moves. */
function clocked(options: { ttlSeconds?: number; maxTasks?: number } = {}) {
  let now = 1_000_000;
  const store = new MemoryTaskStore({ ...options, now: () => now });
  return { store, advance: (ms: number) => (now += ms) };
}

describe('MemoryTaskStore', () => {
  it('saves and loads copies: changing a loaded or saved object changes nothing stored', async () => {
    const { store } = clocked();
    const task = makeTask({ id: 't1', withArtifact: true });
    await store.save(task, planner);
    task.status!.state = TaskState.TASK_STATE_FAILED;
    const loaded = (await store.load('t1', planner))!;
    expect(loaded.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    loaded.artifacts.length = 0;
    expect((await store.load('t1', planner))!.artifacts).toHaveLength(1);
  });

  it('copies the bytes of a raw part rather than sharing them', async () => {
    const { store } = clocked();
    const task = Task.fromJSON({
      id: 'raw',
      contextId: 'c',
      status: { state: 'TASK_STATE_COMPLETED' },
      artifacts: [{ artifactId: 'a', parts: [{ raw: 'AQID' }] }],
    });
    await store.save(task, planner);
    const bytes = (part: Task['artifacts'][number]['parts'][number] | undefined) => (part?.content?.$case === 'raw' ? part.content.value : undefined);
    bytes(task.artifacts[0]!.parts[0])![0] = 9;
    const loaded = (await store.load('raw', planner))!;
    expect(Buffer.isBuffer(bytes(loaded.artifacts[0]!.parts[0]))).toBe(true);
    expect([...bytes(loaded.artifacts[0]!.parts[0])!]).toEqual([1, 2, 3]);
    expect(Task.toJSON(loaded)).toMatchObject({ id: 'raw', artifacts: [{ artifactId: 'a', parts: [{ raw: 'AQID' }] }] });
  });

  it('keeps each tenant and owner to their own tasks', async () => {
    const { store } = clocked();
    await store.save(makeTask({ id: 'mine' }), planner);
    for (const other of [caller('critic'), caller('planner', 'acme'), new ServerCallContext()]) {
      expect(await store.load('mine', other)).toBeUndefined();
      expect((await store.list(listRequest(), other)).tasks).toEqual([]);
    }
  });

  it('forgets a task ttlSeconds after its last save, and a save starts the time again', async () => {
    const { store, advance } = clocked({ ttlSeconds: 60 });
    await store.save(makeTask({ id: 'old' }), planner);
    await store.save(makeTask({ id: 'kept' }), planner);
    advance(50_000);
    await store.save(makeTask({ id: 'kept', state: 'TASK_STATE_COMPLETED' }), planner);
    advance(20_000);
    expect(await store.load('old', planner)).toBeUndefined();
    expect((await store.load('kept', planner))?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(ids(await store.list(listRequest(), planner))).toEqual(['kept']);
    expect(store.size).toBe(1);
    advance(60_000);
    expect(await store.load('kept', planner)).toBeUndefined();
    expect((await store.list(listRequest(), planner)).totalSize).toBe(0);
    expect(store.size).toBe(0);
  });

  it('holds at most maxTasks, dropping the least recently saved', async () => {
    const { store, advance } = clocked({ maxTasks: 3 });
    for (const id of ['a', 'b', 'c']) {
      await store.save(makeTask({ id }), planner);
      advance(1);
    }
    await store.save(makeTask({ id: 'a' }), caller('planner')); // saved again: now the most recent
    await store.save(makeTask({ id: 'd' }), caller('critic'));
    expect(store.size).toBe(3);
    expect(await store.load('b', planner)).toBeUndefined();
    expect(await store.load('a', planner)).toBeDefined();
    expect(await store.load('c', planner)).toBeDefined();
    expect(await store.load('d', caller('critic'))).toBeDefined();
  });

  it('lists exactly as the SDK InMemoryTaskStore does, and gives copies', async () => {
    const ours = new MemoryTaskStore();
    const sdk = new InMemoryTaskStore();
    for (const task of [makeTask({ id: 'no-time', contextId: 'ctx-b', state: 'TASK_STATE_SUBMITTED' }), ...FIVE]) {
      await ours.save(task, planner);
      await sdk.save(task, planner);
    }
    for (const params of LIST_CASES)
      expect(withoutTokens(await allPages(ours, params)), JSON.stringify(params)).toEqual(withoutTokens(await allPages(sdk, params)));
    const listed = (await ours.list(listRequest({ includeArtifacts: true }), planner)).tasks.find((task) => task.id === 't1')!;
    listed.artifacts.length = 0;
    expect((await ours.load('t1', planner))!.artifacts).toHaveLength(1);
  });

  it('refuses a bound that is not a positive integer', () => {
    for (const maxTasks of [0, -1, 1.5, Number.NaN]) expect(() => new MemoryTaskStore({ maxTasks })).toThrow(/maxTasks/);
  });
});
