/**
 * The traced store hands out one function per method (kept while the
 * store's method stays the same), which spans the operations on long-term
 * records when tracing is on, whenever it was handed out, and goes straight
 * to the store when it is off.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterEach, describe, expect, it } from 'vitest';
import { setTracingEnabled } from '../../runtime/core/telemetry/tracing.js';
import type { MemoryStore } from '../../runtime/memory/memory-store.js';
import { tracedMemoryStore } from '../../runtime/memory/traced-memory-store.js';
import { exportingAtOnce } from '../support/otel-spans.js';

/** A store of which only the methods called here exist, each recording its receiver and arguments. */
function fakeStore() {
  const calls: Array<{ method: string; self: unknown; args: unknown[] }> = [];
  const store = {
    location: 'fake',
    embeddingModel: 'fake-model',
    search(this: unknown, ...args: unknown[]) {
      calls.push({ method: 'search', self: this, args });
      return Promise.resolve({ hits: [], total: 7 });
    },
    getWorkingMemory(this: unknown, ...args: unknown[]) {
      calls.push({ method: 'getWorkingMemory', self: this, args });
      return Promise.resolve(undefined);
    },
    getRecords(this: unknown, ...args: unknown[]): Promise<never> {
      calls.push({ method: 'getRecords', self: this, args });
      throw new Error('thrown before any promise');
    },
  };
  return { store, calls, traced: tracedMemoryStore(store as unknown as MemoryStore) };
}

const exporter = new InMemorySpanExporter();
let provider: NodeTracerProvider | undefined;

afterEach(async () => {
  setTracingEnabled(false);
  await provider?.shutdown();
  provider = undefined;
  trace.disable();
  context.disable();
  propagation.disable();
  exporter.reset();
});

describe('tracedMemoryStore', () => {
  it('hands out the same function for a method each time, bound to the store, and a new one when the method changes', async () => {
    const { store, calls, traced } = fakeStore();
    expect(traced.search).toBe(traced.search);
    expect(traced.getWorkingMemory).toBe(traced.getWorkingMemory);
    expect(traced.location).toBe('fake');

    const search = traced.search;
    await expect(search({ vector: undefined, filters: {}, limit: 1, offset: 0 })).resolves.toEqual({ hits: [], total: 7 });
    const getWorkingMemory = traced.getWorkingMemory;
    await getWorkingMemory({ sessionId: 's' });
    expect(calls.map((c) => [c.method, c.self === store])).toEqual([
      ['search', true],
      ['getWorkingMemory', true],
    ]);

    // A method replaced on the store (as a test double would) is what the next read hands out.
    store.search = function (this: unknown, ...args: unknown[]) {
      calls.push({ method: 'search (replaced)', self: this, args });
      return Promise.resolve({ hits: [], total: 8 });
    };
    expect(traced.search).not.toBe(search);
    await expect(traced.search({ vector: undefined, filters: {}, limit: 1, offset: 0 })).resolves.toEqual({ hits: [], total: 8 });
    expect(calls.at(-1)).toMatchObject({ method: 'search (replaced)', self: store });
  });

  it('goes straight to the store while tracing is off: its answer, and a synchronous throw as a throw', async () => {
    const { traced } = fakeStore();
    await expect(traced.search({ vector: undefined, filters: {}, limit: 1, offset: 0 })).resolves.toEqual({ hits: [], total: 7 });
    expect(() => traced.getRecords(['a'])).toThrow('thrown before any promise');
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('spans the traced operations once tracing is on, also through a function handed out before, and not the others', async () => {
    const { traced } = fakeStore();
    const search = traced.search;
    await search({ vector: undefined, filters: {}, limit: 1, offset: 0 });
    provider = new NodeTracerProvider({ spanProcessors: [exportingAtOnce(exporter)] });
    provider.register();
    setTracingEnabled(true);
    await expect(search({ vector: undefined, filters: {}, limit: 1, offset: 0 })).resolves.toEqual({ hits: [], total: 7 });
    await traced.getWorkingMemory({ sessionId: 's' });
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(['memory.search']);
    expect(spans[0]!.attributes).toEqual({ 'db.operation.name': 'search' });
    expect(spans[0]!.kind).toBe(2); // CLIENT
  });
});
