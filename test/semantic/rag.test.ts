import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentResponse } from '../../runtime/core/agent-response.js';
import { FrameworkCore } from '../../runtime/core/framework-core.js';
import type { RunningModelServer } from '../../runtime/model/start-model-server.js';
import { MCPToolkit } from '../../runtime/semantic/mcp-toolkit.js';
import type { DocumentHit } from '../../runtime/semantic/tool-contract.js';
import { answerFromDocuments, contextFrom, NO_INFORMATION_ANSWER, ragPrompt, registerRagStep } from '../../runtime/semantic/rag.js';
import { freePort } from '../support/net.js';
import { startLayerStack, type LayerStack } from './support.js';

let stack: LayerStack;
let models: RunningModelServer;
let toolkit: MCPToolkit;

beforeAll(async () => {
  stack = await startLayerStack({});
  ({ models, toolkit } = stack);
  await stack.toolkit.storeDocument('The office wifi password is printed on the router in room 12.', { source: 'handbook.md' });
  await stack.toolkit.storeDocument('Lunch is served in the canteen from 12:00 to 14:00.', { source: 'canteen.md' });
}, 300_000);

afterAll(async () => {
  await stack?.close();
});

describe('the retrieval-augmented pattern', () => {
  it('builds the context from hit contents joined by newlines, and none from an error', () => {
    const hits: DocumentHit[] = [
      { id: 'a', content: 'one', metadata: { source: 'x' }, score: 0.9 },
      { id: 'b', content: 'two', metadata: {}, score: 0.5 },
    ];
    expect(contextFrom(hits)).toEqual({
      context: 'one\ntwo',
      sources: [
        { id: 'a', metadata: { source: 'x' }, score: 0.9 },
        { id: 'b', metadata: {}, score: 0.5 },
      ],
    });
    expect(contextFrom({ error: 'down' })).toEqual({ context: '', sources: [] });
    expect(ragPrompt('Q?', 'C')).toMatch(/only the context[\s\S]*do not have that information[\s\S]*Context:\nC\n\nQuestion: Q\?/);
  });

  it('answers from the stored documents with the real model, citing the hits as sources', async () => {
    const llmConfig = { provider: 'ollama' as const, model: 'smollm2', base_url: models.url, temperature: 0 };
    const { answer, sources } = await answerFromDocuments({ search: toolkit, llmConfig, question: 'When is lunch served?' });
    expect(answer.length).toBeGreaterThan(0);
    expect(answer).not.toBe(NO_INFORMATION_ANSWER);
    expect(sources).toHaveLength(2);
    expect(sources[0]?.metadata).toEqual({ source: 'canteen.md' });
  }, 120_000);

  it('with no context (the search failed) says there is no information and does not call the model', async () => {
    const deadModel = { provider: 'ollama' as const, model: 'smollm2', base_url: `http://127.0.0.1:${await freePort()}` };
    const unreachable = new MCPToolkit({ url: `http://127.0.0.1:${await freePort()}/mcp`, maxRetries: 0 });
    const result = await answerFromDocuments({ search: unreachable, llmConfig: deadModel, question: 'When is lunch served?' });
    expect(result).toEqual({ answer: NO_INFORMATION_ANSWER, sources: [] });
    await unreachable.close();
  });

  it('works as a step inside a task that yields {answer, sources}', async () => {
    const core = new FrameworkCore();
    const deadModel = { provider: 'ollama' as const, model: 'smollm2', base_url: `http://127.0.0.1:${await freePort()}` };
    const empty = { searchDocuments: async () => [] };
    registerRagStep(core, { search: empty, llmConfig: deadModel });
    core.task({ name: 'route_to_task' }, async function* ({ query, agent }) {
      yield AgentResponse.result(await agent.executeStep('answer_from_documents', { question: query }));
    });
    const responses = [];
    for await (const response of core.executeTask('route_to_task', { query: 'anything?' })) responses.push(response);
    expect(responses).toEqual([{ type: 'result', data: { answer: NO_INFORMATION_ANSWER, sources: [] } }]);
  });
});
