import { availableParallelism } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuThreads, threadsForLoad } from '../../runtime/model/cpu-threads.js';
import { LlamaEngine } from '../../runtime/model/llama-engine.js';
import { defaultModelStore } from './support/default-model.js';

describe('threadsForLoad', () => {
  it('uses the cores other processes leave free, at least one, at most the limit', () => {
    expect(threadsForLoad({ limit: 2, cores: 2, load: 0, own: 0 })).toBe(2);
    expect(threadsForLoad({ limit: 2, cores: 2, load: 16, own: 2 })).toBe(1);
    expect(threadsForLoad({ limit: 2, cores: 2, load: 3, own: 2 })).toBe(1);
    expect(threadsForLoad({ limit: 8, cores: 8, load: 3.4, own: 0 })).toBe(5);
    expect(threadsForLoad({ limit: 4, cores: 8, load: 0, own: 0 })).toBe(4);
  });

  it("does not count the engine's own threads as somebody else's load", () => {
    expect(threadsForLoad({ limit: 2, cores: 2, load: 2, own: 2 })).toBe(2);
    expect(threadsForLoad({ limit: 2, cores: 2, load: 2, own: 0 })).toBe(1);
  });
});

describe('CpuThreads', () => {
  it('adapts to the load before each generation, counting its own threads for a minute after it ran', () => {
    let load = 0;
    const threads = new CpuThreads({ loadAverage: () => load });
    const all = availableParallelism();
    expect(threads.next(0)).toBe(all);
    load = all + 10;
    expect(threads.next(1_000)).toBe(1);
    load = 1; // only our one thread: all cores are free again
    expect(threads.next(2_000)).toBe(all);
    load = 1; // idle for over a minute: that load is somebody else's
    expect(threads.next(100_000)).toBe(Math.max(1, all - 1));
  });

  it('keeps a fixed count whatever the load', () => {
    const threads = new CpuThreads({ threads: 3, loadAverage: () => 50 });
    expect(threads.next()).toBe(3);
    expect(threads.limit).toBe(3);
  });
});

describe('LlamaEngine threads (real SmolLM2)', () => {
  const engines: LlamaEngine[] = [];
  afterAll(async () => {
    await Promise.all(engines.map((engine) => engine.dispose()));
  });

  it('generates with one thread when the machine is busy and all cores when it is not', async () => {
    const { model } = await defaultModelStore();
    let load = 100;
    const engine = new LlamaEngine({ model, loadAverage: () => load });
    engines.push(engine);
    const ask = () => engine.generate({ messages: [{ role: 'user', content: 'Say hi.' }], options: { num_predict: 4, temperature: 0 } });
    const busy = await ask();
    expect(engine.threads).toBe(1);
    load = 0;
    const quiet = await ask();
    expect(engine.threads).toBe(availableParallelism());
    // The same greedy answer whatever the thread count.
    expect(quiet.text).toBe(busy.text);
  }, 300_000);
});
