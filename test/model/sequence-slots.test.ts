import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../runtime/core/errors/config-error.js';
import { resolveNumParallel } from '../../runtime/model/llama-engine.js';
import { SequenceSlots } from '../../runtime/model/sequence-slots.js';

/** A job that records when it starts and ends when `finish()` is called. */
function job(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    work: async () => {
      log.push(`start ${name}`);
      await done;
      return name;
    },
    finish,
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SequenceSlots', () => {
  it('runs up to `slots` jobs of one key at once and starts the next one in order when one ends', async () => {
    const log: string[] = [];
    const slots = new SequenceSlots({ slots: 2, maxQueue: 4 });
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => job(log, n));
    const runs = [a, b, c, d].map((j) => slots.run({ key: 2048, work: j!.work }));
    expect(log).toEqual(['start a', 'start b']);
    expect(slots.waiting).toBe(2);
    b!.finish();
    await tick();
    expect(log).toEqual(['start a', 'start b', 'start c']);
    for (const j of [a, c, d]) j!.finish();
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c', 'd']);
    expect(slots.running).toBe(0);
  });

  it('holds a job that needs another context size until the running ones end, and the ones behind it too', async () => {
    const log: string[] = [];
    const slots = new SequenceSlots({ slots: 2, maxQueue: 4 });
    const [a, big, c] = ['a', 'big', 'c'].map((n) => job(log, n));
    const runs = [slots.run({ key: 2048, work: a!.work }), slots.run({ key: 4096, work: big!.work }), slots.run({ key: 2048, work: c!.work })];
    expect(log).toEqual(['start a']);
    a!.finish();
    await tick();
    expect(log).toEqual(['start a', 'start big']);
    big!.finish();
    await tick();
    expect(log).toEqual(['start a', 'start big', 'start c']);
    c!.finish();
    await Promise.all(runs);
  });

  it('runs an exclusive job alone, after the jobs before it and before the ones after it', async () => {
    const log: string[] = [];
    const slots = new SequenceSlots({ slots: 2, maxQueue: 4 });
    const [a, b] = ['a', 'b'].map((n) => job(log, n));
    const first = slots.run({ key: 1, work: a!.work });
    const unload = slots.exclusive(async () => void log.push('unload'));
    const second = slots.run({ key: 1, work: b!.work });
    expect(log).toEqual(['start a']);
    a!.finish();
    await first;
    await unload;
    await tick();
    expect(log).toEqual(['start a', 'unload', 'start b']);
    b!.finish();
    await second;
  });

  it('refuses with a 503 past maxQueue waiting jobs, and a waiting job whose signal aborts leaves the line', async () => {
    const log: string[] = [];
    const slots = new SequenceSlots({ slots: 1, maxQueue: 1 });
    const [a, b, c] = ['a', 'b', 'c'].map((n) => job(log, n));
    const running = slots.run({ key: 1, work: a!.work });
    const leaving = new AbortController();
    const waiting = slots.run({ key: 1, signal: leaving.signal, work: b!.work });
    await expect(slots.run({ key: 1, work: c!.work })).rejects.toMatchObject({ status: 503, message: expect.stringContaining('server busy') });
    leaving.abort(new Error('client disconnected'));
    await expect(waiting).rejects.toThrow('client disconnected');
    expect(slots.waiting).toBe(0);
    // Its place in the line is free again.
    const third = slots.run({ key: 1, work: c!.work });
    a!.finish();
    c!.finish();
    expect(await Promise.all([running, third])).toEqual(['a', 'c']);
    expect(log).toEqual(['start a', 'start c']);
  });

  it('rejects a job whose signal already aborted without running it', async () => {
    const slots = new SequenceSlots({ slots: 1, maxQueue: 1 });
    await expect(slots.run({ key: 1, signal: AbortSignal.abort(new Error('gone')), work: async () => 'ran' })).rejects.toThrow('gone');
  });
});

describe('resolveNumParallel', () => {
  it('takes the option, then OLLAMA_NUM_PARALLEL, then 2, and names both when the value is bad', () => {
    expect(resolveNumParallel(3, { OLLAMA_NUM_PARALLEL: '5' })).toBe(3);
    expect(resolveNumParallel(undefined, { OLLAMA_NUM_PARALLEL: '5' })).toBe(5);
    expect(resolveNumParallel(undefined, { OLLAMA_NUM_PARALLEL: ' ' })).toBe(2);
    expect(resolveNumParallel(undefined, {})).toBe(2);
    for (const bad of ['0', 'two', '1.5', '-1']) {
      expect(() => resolveNumParallel(undefined, { OLLAMA_NUM_PARALLEL: bad })).toThrow(ConfigError);
      expect(() => resolveNumParallel(undefined, { OLLAMA_NUM_PARALLEL: bad })).toThrow(/OLLAMA_NUM_PARALLEL/);
    }
    expect(() => resolveNumParallel(0, {})).toThrow(/numParallel/);
  });
});
