/**
 * The events of an A2A JSON-RPC stream (`RpcEventStream`, which replaced an
 * async generator): the same events in the same order through `next()` and
 * `nextInto()`, a failure of the SDK's stream as its last event, a refused
 * first result alone, and `return()` ending it as the generator's did.
 */
import { describe, expect, it } from 'vitest';
import { RpcEventStream, type RpcStreamEvent } from '../../runtime/a2a/rpc-event-stream.js';

async function* answers(count: number, failAfter?: number): AsyncGenerator<unknown> {
  for (let i = 1; i <= count; i++) {
    if (i === failAfter) throw new Error(`broke at ${i}`);
    yield { n: i };
  }
}

const failure = (error: unknown): RpcStreamEvent => ({ answer: { error: (error as Error).message }, failed: true });

async function drain(stream: AsyncIterable<RpcStreamEvent>): Promise<RpcStreamEvent[]> {
  const events: RpcStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The events through `nextInto` alone, as the SSE pump takes them. */
function drainByCallbacks(stream: RpcEventStream): Promise<RpcStreamEvent[]> {
  const events: RpcStreamEvent[] = [];
  return new Promise((resolve, reject) => {
    const pull = () =>
      stream.nextInto((result) => {
        if (result.done) resolve(events);
        else {
          events.push(result.value);
          pull();
        }
      }, reject);
    pull();
  });
}

describe('RpcEventStream', () => {
  it('gives the first answer, then every answer of the rest, by next() and by nextInto() alike', async () => {
    const expected = [0, 1, 2, 3].map((n) => ({ answer: { n }, failed: false }));
    const make = () => new RpcEventStream({ first: { answer: { n: 0 }, failed: false }, rest: answers(3), failure });
    expect(await drain(make())).toEqual(expected);
    expect(await drainByCallbacks(make())).toEqual(expected);
  });

  it('ends with the failure event when the rest fails, and gives nothing after it', async () => {
    const stream = new RpcEventStream({ first: { answer: { n: 0 }, failed: false }, rest: answers(5, 3), failure });
    expect(await drain(stream)).toEqual([
      { answer: { n: 0 }, failed: false },
      { answer: { n: 1 }, failed: false },
      { answer: { n: 2 }, failed: false },
      { answer: { error: 'broke at 3' }, failed: true },
    ]);
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });

  it('turns a rest whose next() throws at once into the failure event', async () => {
    const throwing: AsyncIterator<unknown> = {
      next: () => {
        throw new Error('sync');
      },
    };
    const stream = new RpcEventStream({ first: { answer: { n: 0 }, failed: false }, rest: throwing, failure });
    expect(await drainByCallbacks(stream)).toEqual([
      { answer: { n: 0 }, failed: false },
      { answer: { error: 'sync' }, failed: true },
    ]);
  });

  it('gives a refused first result alone, and nothing for an empty stream', async () => {
    expect(await drain(new RpcEventStream({ first: { answer: { error: 'refused' }, failed: true }, failure }))).toEqual([
      { answer: { error: 'refused' }, failed: true },
    ]);
    expect(await drain(new RpcEventStream({ failure }))).toEqual([]);
  });

  it('ends at return() (the client went): no further event, the rest left to the request’s abort', async () => {
    let closed = false;
    const rest: AsyncIterator<unknown> = {
      next: () => Promise.resolve({ done: false, value: { n: 1 } }),
      return: () => {
        closed = true;
        return Promise.resolve({ done: true, value: undefined });
      },
    };
    const stream = new RpcEventStream({ first: { answer: { n: 0 }, failed: false }, rest, failure });
    expect(await stream.next()).toEqual({ done: false, value: { answer: { n: 0 }, failed: false } });
    expect(await stream.return()).toEqual({ done: true, value: undefined });
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(closed).toBe(false);
  });
});
