import { describe, expect, it } from 'vitest';
import { InProcessThreadHistory } from '../../runtime/llm/in-process-thread-history.js';
import type { ChatMessage } from '../../runtime/llm/thread-history.js';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });

describe('InProcessThreadHistory', () => {
  it('keeps messages per thread, oldest first, and [] for an unknown thread', async () => {
    const memory = new InProcessThreadHistory({ maxMessages: 10 });
    expect(memory.backend).toBe('memory');
    await memory.append('a', [user('1'), assistant('2')]);
    await memory.append('b', [user('x')]);
    await memory.append('a', [user('3')]);
    expect(await memory.load('a')).toEqual([user('1'), assistant('2'), user('3')]);
    expect(await memory.load('b')).toEqual([user('x')]);
    expect(await memory.load('c')).toEqual([]);
  });

  it('keeps tool calls and tool results, as copies the caller cannot change', async () => {
    const memory = new InProcessThreadHistory({ maxMessages: 10 });
    const call: ChatMessage = { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'lookup', arguments: { word: 'agent' } }] };
    const result: ChatMessage = { role: 'tool', content: '{"found":true}', tool_call_id: 'c1', name: 'lookup' };
    await memory.append('t', [user('define agent'), call, result]);
    (call.tool_calls![0]!.arguments as { word: string }).word = 'changed';
    const loaded = await memory.load('t');
    expect(loaded).toEqual([user('define agent'), { ...call, tool_calls: [{ id: 'c1', name: 'lookup', arguments: { word: 'agent' } }] }, result]);
    loaded[1]!.tool_calls!.length = 0;
    expect((await memory.load('t'))[1]!.tool_calls).toHaveLength(1);
  });

  it('keeps only the last maxMessages of a thread', async () => {
    const memory = new InProcessThreadHistory({ maxMessages: 3 });
    for (let i = 1; i <= 5; i++) await memory.append('t', [user(String(i))]);
    expect((await memory.load('t')).map((m) => m.content)).toEqual(['3', '4', '5']);
  });

  it('evicts the least recently used thread beyond maxThreads', async () => {
    const memory = new InProcessThreadHistory({ maxMessages: 4, maxThreads: 2 });
    await memory.append('a', [user('a')]);
    await memory.append('b', [user('b')]);
    await memory.load('a'); // a is now more recent than b
    await memory.append('c', [user('c')]);
    expect(memory.size).toBe(2);
    expect(await memory.load('b')).toEqual([]);
    expect(await memory.load('a')).toEqual([user('a')]);
    expect(await memory.load('c')).toEqual([user('c')]);
  });

  it('returns copies: changing a loaded array does not change the thread', async () => {
    const memory = new InProcessThreadHistory({ maxMessages: 4 });
    await memory.append('t', [user('kept')]);
    const loaded = await memory.load('t');
    loaded.push(user('intruder'));
    loaded[0]!.content = 'changed';
    expect(await memory.load('t')).toEqual([user('kept')]);
  });

  it('clear() forgets a thread; a new instance starts empty (history lost on restart)', async () => {
    const memory = new InProcessThreadHistory({ maxMessages: 4 });
    await memory.append('t', [user('hello')]);
    await memory.append('u', [user('other')]);
    await memory.clear('t');
    expect(await memory.load('t')).toEqual([]);
    expect(await new InProcessThreadHistory({ maxMessages: 4 }).load('u')).toEqual([]);
  });

  it('rejects a maxMessages or maxThreads that is not a positive integer', () => {
    expect(() => new InProcessThreadHistory({ maxMessages: 0 })).toThrow(RangeError);
    expect(() => new InProcessThreadHistory({ maxMessages: 2.5 })).toThrow(/maxMessages/);
    expect(() => new InProcessThreadHistory({ maxMessages: 2, maxThreads: -1 })).toThrow(/maxThreads/);
  });
});
