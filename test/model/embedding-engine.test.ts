import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddingEngine } from '../../runtime/model/embedding-engine.js';
import type { StoredModel } from '../../runtime/model/model-store.js';
import { defaultEmbeddingStore } from './support/default-model.js';

// The engine from the TypeScript sources runs the encoder in-process (vitest cannot start a
// worker from a .ts file); the compiled one in dist/ (built by `npm test`) runs it in a worker thread.
const compiledUrl = new URL('../../dist/runtime/model/embedding-engine.js', import.meta.url);
const compiled = existsSync(fileURLToPath(compiledUrl)) && existsSync(fileURLToPath(new URL('../../dist/runtime/model/embedding-worker.js', import.meta.url)));

const SENTENCES = [
  'A man is eating food.',
  'A man is eating a piece of bread.',
  'Sentence number 3 is about agents that plan, call tools and remember what users said.',
];
const LONG = 'word '.repeat(400);
const dot = (a: readonly number[], b: readonly number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

let model: StoredModel;
let inProcess: EmbeddingEngine;
let reference: number[][];

beforeAll(async () => {
  ({ model } = await defaultEmbeddingStore());
  inProcess = new EmbeddingEngine({ model });
  reference = (await inProcess.embed({ inputs: [...SENTENCES, LONG], truncate: true })).embeddings;
}, 300_000);

afterAll(() => inProcess?.unload());

describe('EmbeddingEngine in-process (TypeScript sources)', () => {
  it('embeds each input alone as in a batch', async () => {
    expect(dot(reference[0]!, reference[1]!)).toBeCloseTo(0.7553, 2);
    for (const [i, input] of SENTENCES.entries()) {
      const { embeddings } = await inProcess.embed({ inputs: [input], truncate: true });
      for (const [j, x] of embeddings[0]!.entries()) expect(Math.abs(x - reference[i]![j]!)).toBeLessThan(1e-5);
    }
  });

  it('reloads after unload', async () => {
    inProcess.unload();
    const { embeddings, loadDuration } = await inProcess.embed({ inputs: [SENTENCES[0]!], truncate: true });
    expect(loadDuration).toBeGreaterThan(0);
    expect(dot(embeddings[0]!, reference[0]!)).toBeCloseTo(1, 5);
  });
});

describe.skipIf(!compiled)('EmbeddingEngine in a worker thread (compiled dist/)', () => {
  let engine: EmbeddingEngine;

  beforeAll(async () => {
    const { EmbeddingEngine: Compiled } = (await import(compiledUrl.href)) as typeof import('../../runtime/model/embedding-engine.js');
    engine = new Compiled({ model });
    await engine.load();
  }, 60_000);

  afterAll(() => engine?.unload());

  it('gives the same vectors as in-process', async () => {
    const { embeddings, promptEvalCount } = await engine.embed({ inputs: [...SENTENCES, LONG], truncate: true });
    expect(promptEvalCount).toBe(8 + 11 + 19 + 256);
    for (const [i, vector] of embeddings.entries()) for (const [j, x] of vector.entries()) expect(Math.abs(x - reference[i]![j]!)).toBeLessThan(1e-5);
  });

  it('keeps the event loop responsive while a 256-token input is embedded', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const started = performance.now();
    try {
      const { promptEvalCount } = await engine.embed({ inputs: [LONG, LONG], truncate: true });
      expect(promptEvalCount).toBe(512);
    } finally {
      clearInterval(timer);
    }
    // In-process, the timer could fire at most once, after the embedding; here it runs throughout.
    expect(performance.now() - started).toBeGreaterThan(100);
    expect(ticks).toBeGreaterThanOrEqual(10);
  });

  it('skips a queued request whose signal fires, and finishes the running one', async () => {
    const controller = new AbortController();
    const running = engine.embed({ inputs: [LONG], truncate: true });
    const queued = engine.embed({ inputs: [SENTENCES[0]!], truncate: true, signal: controller.signal });
    controller.abort(new Error('client went away'));
    await expect(queued).rejects.toThrow('client went away');
    expect((await running).embeddings).toHaveLength(1);
  });

  it('refuses too long input with truncate false', async () => {
    await expect(engine.embed({ inputs: [LONG], truncate: false })).rejects.toMatchObject({ status: 400 });
  });

  it('unload stops the worker and rejects what was queued; the next request starts a new one', async () => {
    const running = engine.embed({ inputs: [LONG], truncate: true });
    const queued = engine.embed({ inputs: [SENTENCES[0]!], truncate: true });
    // Let the requests reach the worker's queue.
    await new Promise((resolve) => setTimeout(resolve, 20));
    engine.unload();
    await expect(running).rejects.toThrow('unloaded');
    await expect(queued).rejects.toThrow('unloaded');
    const { embeddings, loadDuration } = await engine.embed({ inputs: [SENTENCES[0]!], truncate: true });
    expect(loadDuration).toBeGreaterThan(0);
    expect(dot(embeddings[0]!, reference[0]!)).toBeCloseTo(1, 5);
  });

  it("does not keep a process alive once idle (the worker is unref'd)", async () => {
    const script = [
      `const { EmbeddingEngine } = await import(${JSON.stringify(compiledUrl.href)});`,
      `const engine = new EmbeddingEngine({ model: ${JSON.stringify(model)} });`,
      `const { embeddings } = await engine.embed({ inputs: ['hello'], truncate: true });`,
      'console.log(embeddings[0].length);',
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000 });
    expect(stdout.trim()).toBe('384');
  });
});
