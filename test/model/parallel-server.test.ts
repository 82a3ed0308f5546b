import { Ollama, type ChatResponse } from 'ollama';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startModelServer, type RunningModelServer } from '../../runtime/model/start-model-server.js';
import { defaultModelStore } from './support/default-model.js';

// Generation shares two cores with the rest of the suite: allow for that.
vi.setConfig({ testTimeout: 120_000 });

// The real default model (SmolLM2-135M) with two context sequences, through the official ollama client.
let server: RunningModelServer;
let client: Ollama;

beforeAll(async () => {
  const { store } = await defaultModelStore();
  server = await startModelServer({ store, host: '127.0.0.1', port: 0, numParallel: 2 });
  client = new Ollama({ host: server.url });
}, 300_000);

afterAll(async () => {
  await server?.close();
});

const ask = (content: string) => ({
  model: 'smollm2',
  messages: [{ role: 'user' as const, content }],
  options: { temperature: 0, seed: 7, num_predict: 24 },
});

/** Streams one chat, pushing `<label>:token` for each text piece and `<label>:done` at the end into `events`. */
async function streamed(label: string, content: string, events: string[]): Promise<string> {
  let text = '';
  for await (const part of await client.chat({ ...ask(content), stream: true })) {
    if (part.message.content) {
      text += part.message.content;
      events.push(`${label}:token`);
    }
    if (part.done) events.push(`${label}:done`);
  }
  return text;
}

describe('parallel sequences (numParallel 2)', () => {
  it('runs two streams at the same time, each answering as it does alone', async () => {
    const questions = { a: 'Name three colours.', b: 'What is the capital of Italy?' };
    const alone = {
      a: (await client.chat({ ...ask(questions.a), stream: false })).message.content,
      b: (await client.chat({ ...ask(questions.b), stream: false })).message.content,
    };
    const events: string[] = [];
    const [a, b] = await Promise.all([streamed('a', questions.a, events), streamed('b', questions.b, events)]);
    // Both had produced text before either finished: they ran side by side, not one after the other.
    const firstDone = events.findIndex((e) => e.endsWith(':done'));
    expect(events.slice(0, firstDone)).toContain('a:token');
    expect(events.slice(0, firstDone)).toContain('b:token');
    // Greedy decoding in a shared batch gives the same tokens as alone (llama.cpp's CPU kernels compute each row on its own).
    expect(a).toBe(alone.a);
    expect(b).toBe(alone.b);
  });

  it('frees the sequence of a client that disconnects, so a waiting request runs while the other stream goes on', async () => {
    const long = (signal: AbortSignal) =>
      fetch(`${server.url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'smollm2',
          messages: [{ role: 'user', content: 'Write a very long story about a dragon, with many chapters.' }],
          // At temperature 0 this prompt runs to the token budget: far longer than this test.
          options: { num_predict: 100_000, num_ctx: 4096, temperature: 0 },
        }),
        signal,
      });
    const gone = new AbortController();
    const witness = new AbortController();
    const events: string[] = [];
    try {
      // Two long generations fill both sequences.
      const first = await long(gone.signal);
      const second = await long(witness.signal);
      const firstReader = first.body!.getReader();
      const secondReader = second.body!.getReader();
      await firstReader.read();
      await secondReader.read();
      // The witness keeps streaming; a line with `done` would mean it ended.
      const watching = (async () => {
        const decoder = new TextDecoder();
        for (;;) {
          const { value, done } = await secondReader.read();
          if (done) return;
          if (decoder.decode(value).includes('"done":true')) events.push('witness:done');
        }
      })().catch(() => undefined);
      // A third request waits for a sequence (same context size, so it may share the context).
      const waiting = client.chat({
        model: 'smollm2',
        messages: [{ role: 'user', content: 'Hi' }],
        stream: false,
        options: { temperature: 0, num_predict: 2, num_ctx: 4096 },
      });
      gone.abort();
      const reply: ChatResponse = await waiting;
      events.push('waiting:done');
      expect(reply.done).toBe(true);
      // It was answered while the witness was still generating: the disconnected client's sequence was freed.
      expect(events).toEqual(['waiting:done']);
      witness.abort();
      await watching;
    } finally {
      gone.abort();
      witness.abort();
    }
  });
});
