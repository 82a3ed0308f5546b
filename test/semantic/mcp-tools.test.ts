import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoke } from '../../runtime/llm/invoke.js';
import { mcpTools } from '../../runtime/semantic/mcp-tools.js';
import { ScriptedLanguageModel } from '../../runtime/testing/scripted-language-model.js';
import { startLayerStack, type LayerStack } from './support.js';

// An MCP server's tools as AgentTools, through the official MCP client, against the real Semantic Layer.

let stack: LayerStack;

beforeAll(async () => {
  stack = await startLayerStack();
  await stack.toolkit.storeDocument('Refunds are paid within 14 days of the return.', { source: 'policy.md' });
});
afterAll(async () => stack?.close());

describe('mcpTools', () => {
  it('lists every tool of the server with its name, description and input schema', async () => {
    const tools = await mcpTools(stack.layer.mcpUrl);
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['search_documents', 'store_document', 'find_agent', 'list_agents']));
    const search = tools.find((tool) => tool.name === 'search_documents');
    expect(search?.description).not.toBe('');
    expect(search?.inputSchema).toMatchObject({ type: 'object', properties: { query: { type: 'string' } } });
  });

  it('lets a model search the documents as a tool through invoke', async () => {
    const tools = await mcpTools(stack.toolkit, { only: ['search_documents'] });
    expect(tools.map((tool) => tool.name)).toEqual(['search_documents']);
    const model = new ScriptedLanguageModel({
      replies: [{ toolCalls: [{ id: 'c1', name: 'search_documents', arguments: { query: 'how long do refunds take' } }] }, 'Within 14 days.'],
    });
    const answer = await invoke({ provider: 'ollama', model: 'scripted' }, 'How long do refunds take?', { tools, languageModel: model });
    expect(answer).toBe('Within 14 days.');
    const result = model.requests[1]?.messages.at(-1);
    expect(result).toMatchObject({ role: 'tool', tool_call_id: 'c1', name: 'search_documents' });
    expect(result?.content).toContain('Refunds are paid within 14 days');
  });

  it("rejects with the server's message when the server refuses a call (invoke sends it to the model as the tool's error)", async () => {
    const [store] = await mcpTools(stack.layer.mcpUrl, { only: ['store_document'] });
    // Arguments the server refuses (invoke would already stop these with the schema): its error comes back as a rejection.
    await expect(store!.run({ content: 'x', metadata: { pages: 3 } }, { toolCallId: 'c1' })).rejects.toThrow(/metadata|string/i);
  });

  it('rejects clearly when the server cannot be reached', async () => {
    await expect(mcpTools('http://127.0.0.1:9/mcp')).rejects.toThrow(/fetch failed|ECONNREFUSED|after \d+ attempts/);
  });
});
