import { describe, expect, it } from 'vitest';
import { AgentMemory } from '../../runtime/memory/agent-memory.js';
import { MemoryServiceError } from '../../runtime/memory/memory-service-error.js';
import { freePort } from '../support/net.js';
import { redisScope } from '../support/redis-scope.js';
import { listeningMemoryService, modelRuntime } from './support.js';

const scope = redisScope();
const models = modelRuntime();
const running = listeningMemoryService({ keyPrefix: scope.prefix, models });

describe('AgentMemory against the memory service over HTTP', () => {
  it('takes its address and session from the options, then AGENT_MEMORY_URL and CONTEXT_ID, and names both when missing', () => {
    expect(() => new AgentMemory({ env: {} })).toThrow(/options\.url or AGENT_MEMORY_URL: is required[\s\S]*options\.contextId or CONTEXT_ID: is required/);
    const fromEnv = new AgentMemory({ env: { AGENT_MEMORY_URL: 'http://127.0.0.1:8000/', CONTEXT_ID: 'demo' } });
    expect([fromEnv.url, fromEnv.contextId]).toEqual(['http://127.0.0.1:8000', 'demo']);
    const explicit = new AgentMemory({
      url: 'http://127.0.0.1:9000',
      contextId: 'mine',
      env: { AGENT_MEMORY_URL: 'http://127.0.0.1:8000', CONTEXT_ID: 'demo' },
    });
    expect([explicit.url, explicit.contextId]).toEqual(['http://127.0.0.1:9000', 'mine']);
    expect(() => new AgentMemory({ url: 'not a url', contextId: 'x', env: {} })).toThrow(/AGENT_MEMORY_URL: must be an absolute URL/);
  });

  it('reads an empty working memory, then appends messages and merges data', async () => {
    const memory = new AgentMemory({ url: running().url, contextId: 'client-session', namespace: 'client', env: {} });
    const empty = await memory.getWorkingMemory();
    expect(empty).toMatchObject({ session_id: 'client-session', namespace: 'client', messages: [], data: {} });
    await memory.addToWorkingMemory({ messages: [{ role: 'user', content: 'Plan a trip to Lisbon' }], data: { city: 'Lisbon' } });
    const after = await memory.addToWorkingMemory({ messages: [{ role: 'assistant', content: 'For how many days?' }], data: { days: 3 } });
    expect(after.messages.map((m) => m.content)).toEqual(['Plan a trip to Lisbon', 'For how many days?']);
    expect(after.data).toEqual({ city: 'Lisbon', days: 3 });
    expect((await memory.getWorkingMemory()).messages).toHaveLength(2);
  });

  it('remembers, deduplicates, recalls by meaning within its namespace, builds prompts and forgets', async () => {
    const memory = new AgentMemory({ url: running().url, contextId: 'c1', namespace: 'agent-a', env: {} });
    const other = new AgentMemory({ url: running().url, contextId: 'c2', namespace: 'agent-b', env: {} });
    const seat = await memory.remember('The user prefers a window seat on flights', { topics: ['travel'] });
    await memory.remember('The team meeting moved to Thursday');
    await other.remember('The user prefers an aisle seat on flights');
    expect(await memory.remember('The user prefers a window seat on flights')).toEqual({ id: seat.id, deduplicated: true });

    const recalled = await memory.recall('Where does the user like to sit when flying?');
    expect(recalled.map((m) => m.text)).toEqual(['The user prefers a window seat on flights', 'The team meeting moved to Thursday']);
    expect(recalled[0]).toMatchObject({ id: seat.id, namespace: 'agent-a', session_id: 'c1', topics: ['travel'], memory_type: 'semantic' });
    expect(recalled[0]!.dist).toBeLessThan(recalled[1]!.dist);
    expect((await memory.recall('seat', { topics: ['travel'] })).map((m) => m.id)).toEqual([seat.id]);
    expect(await memory.recall('seat', { topics: [] })).toEqual([]); // any of no topics: nothing
    expect((await other.recall('Where does the user like to sit?')).map((m) => m.text)).toEqual(['The user prefers an aisle seat on flights']);

    await memory.addToWorkingMemory({ messages: [{ role: 'user', content: 'Book my flight to Oslo' }] });
    const prompt = await memory.memoryPrompt('Which seat should I book?', { limit: 1 });
    expect(prompt.messages.map((m) => m.content.text)).toEqual([
      'Book my flight to Oslo',
      `## Long term memories related to the user's query\n - The user prefers a window seat on flights (ID: ${seat.id})`,
      'Which seat should I book?',
    ]);

    await memory.forget([seat.id]);
    expect((await memory.recall('window seat')).map((m) => m.id)).not.toContain(seat.id);
  });

  it("throws the service's code and message, and names the URL and how to start it when unreachable", async () => {
    const memory = new AgentMemory({ url: running().url, contextId: 'c1', env: {} });
    const refused = await memory.recall('x', { limit: 1000 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MemoryServiceError);
    expect(refused).toMatchObject({ code: 'memory_error', status: 400, serviceCode: 'invalid_request', message: expect.stringContaining('limit') });

    const gone = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await new AgentMemory({ url: gone, contextId: 'c1', env: {} }).remember('x').catch((error: unknown) => error);
    expect(unreachable).toMatchObject({ code: 'memory_unavailable', url: gone });
    expect((unreachable as Error).message).toContain(`The memory service at ${gone} is not reachable`);
    expect((unreachable as Error).message).toContain('framework-cli serve memory');
    expect((unreachable as Error).message).toContain('framework-cli up');
  });
});
