import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { invoke } from '../../runtime/llm/invoke.js';
import { AgentMemory } from '../../runtime/memory/agent-memory.js';
import { MEMORY_MCP_TOOLS, memoryTools } from '../../runtime/memory/index.js';
import { ScriptedLanguageModel } from '../../runtime/testing/scripted-language-model.js';
import { redisScope } from '../support/redis-scope.js';
import { listeningMemoryService, modelRuntime } from './support.js';

// The memory service's MCP tools (AMS's names and arguments) through the
// official MCP client over Streamable HTTP, and memoryTools(agentMemory) as
// AgentTools a model calls through invoke.

const scope = redisScope();
const models = modelRuntime();
const running = listeningMemoryService({ keyPrefix: scope.prefix, models });

const clients: Client[] = [];
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
});

async function connect(): Promise<Client> {
  const client = new Client({ name: 'memory-mcp-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${running().url}/mcp`)));
  clients.push(client);
  return client;
}

const structured = (result: Awaited<ReturnType<Client['callTool']>>) => {
  expect(result.isError ?? false).toBe(false);
  return result.structuredContent as any;
};

describe('the memory service over MCP', () => {
  it("lists AMS's tools and runs them: create, search, working memory, prompt, get, edit, delete", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...MEMORY_MCP_TOOLS].sort());

    expect(structured(await client.callTool({ name: 'get_current_datetime', arguments: {} })).iso_utc).toMatch(/^\d{4}-/);
    const created = structured(
      await client.callTool({
        name: 'create_long_term_memories',
        arguments: {
          memories: [
            { id: 'mcp-tea', text: 'The user drinks green tea every morning', namespace: 'mcp', topics: ['food'] },
            { text: 'The report is due Friday', namespace: 'mcp' },
          ],
        },
      }),
    );
    expect(created.status).toBe('ok');
    expect(created.ids).toHaveLength(2);

    const found = structured(
      await client.callTool({ name: 'search_long_term_memory', arguments: { text: 'What does the user drink?', namespace: { eq: 'mcp' }, limit: 2 } }),
    );
    expect(found.memories[0]).toMatchObject({ id: 'mcp-tea', score_type: 'semantic' });
    const keyword = structured(
      await client.callTool({ name: 'search_long_term_memory', arguments: { text: 'report', search_mode: 'keyword', namespace: { eq: 'mcp' } } }),
    );
    expect(keyword.memories.map((m: { text: string }) => m.text)).toEqual(['The report is due Friday']);

    const set = structured(
      await client.callTool({
        name: 'set_working_memory',
        arguments: { session_id: 'mcp-s', namespace: 'mcp', user_id: 'u1', messages: [{ role: 'user', content: 'Hello over MCP' }], data: { via: 'mcp' } },
      }),
    );
    expect(set.messages[0].content).toBe('Hello over MCP');
    // Found by its id alone, as AMS.
    expect(structured(await client.callTool({ name: 'get_working_memory', arguments: { session_id: 'mcp-s' } })).data).toEqual({ via: 'mcp' });
    expect(structured(await client.callTool({ name: 'get_working_memory', arguments: { session_id: 'never' } })).messages).toEqual([]);

    const prompt = structured(
      await client.callTool({
        name: 'memory_prompt',
        arguments: { query: 'What should I drink?', session_id: { eq: 'mcp-s' }, namespace: { eq: 'mcp' }, limit: 1 },
      }),
    );
    expect(prompt.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'system', 'user']);
    expect(prompt.messages[0].content.text).toBe('Hello over MCP');

    expect(structured(await client.callTool({ name: 'get_long_term_memory', arguments: { memory_id: 'mcp-tea' } })).topics).toEqual(['food']);
    expect(
      structured(await client.callTool({ name: 'edit_long_term_memory', arguments: { memory_id: 'mcp-tea', text: 'The user drinks black coffee' } })).text,
    ).toBe('The user drinks black coffee');
    expect(structured(await client.callTool({ name: 'delete_long_term_memories', arguments: { memory_ids: ['mcp-tea'] } })).status).toBe(
      'ok, deleted 1 memories',
    );

    // Failures are tool results with the message, not transport errors.
    const missing = await client.callTool({ name: 'get_long_term_memory', arguments: { memory_id: 'mcp-tea' } });
    expect(missing.isError).toBe(true);
    expect(JSON.stringify(missing.content)).toContain('not found');
    const bad = await client.callTool({ name: 'search_long_term_memory', arguments: { text: 'x', limit: 1000 } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain('limit');
  });
});

describe('memoryTools(agentMemory)', () => {
  it('lets a model remember, recall and forget through invoke', async () => {
    const memory = new AgentMemory({ url: running().url, contextId: 'tools-ctx', namespace: 'tools' });
    const tools = memoryTools(memory);
    expect(tools.map((t) => t.name)).toEqual(['remember', 'recall', 'forget']);
    let recalled: any;
    const model = new ScriptedLanguageModel({
      replies: [
        { toolCalls: [{ id: 'c1', name: 'remember', arguments: { text: 'The user is allergic to peanuts', topics: ['health'] } }] },
        { toolCalls: [{ id: 'c2', name: 'recall', arguments: { query: 'What food must the user avoid?' } }] },
        (request) => {
          recalled = JSON.parse(String(request.messages.at(-1)!.content));
          return { toolCalls: [{ id: 'c3', name: 'forget', arguments: { ids: [recalled.memories[0].id] } }] };
        },
        (request) => `Done: ${String(request.messages.at(-1)!.content)}`,
      ],
    });
    const answer = await invoke({ provider: 'ollama', model: 'scripted' }, 'Remember my allergy, check it, then forget it.', { languageModel: model, tools });
    expect(recalled.memories[0]).toMatchObject({ text: 'The user is allergic to peanuts', topics: ['health'] });
    expect(answer).toBe('Done: {"deleted":1}');
    expect(await memory.recall('peanuts')).toEqual([]);
    // Bad arguments reach the model as the tool's error, with the reason.
    await expect(tools[0]!.run({ text: '' }, { toolCallId: 'x' }) as Promise<unknown>).rejects.toThrow('text: must not be empty');
  });

  it("forget stays inside the agent's namespace", async () => {
    const other = new AgentMemory({ url: running().url, contextId: 'c', namespace: 'other-team' });
    const { id } = await other.remember('The other team deploys on Thursdays');
    const mine = memoryTools(new AgentMemory({ url: running().url, contextId: 'c', namespace: 'tools' }));
    expect(await mine[2]!.run({ ids: [id] }, { toolCallId: 'f' })).toEqual({ deleted: 0 });
    expect((await other.recall('When does the other team deploy?'))[0]?.id).toBe(id);
  });
});
