import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardId } from '../../runtime/semantic/card-index.js';
import { MCPToolkit } from '../../runtime/semantic/mcp-toolkit.js';
import type { RunningSemanticLayer } from '../../runtime/semantic/start-semantic-layer.js';
import { recordingLogger, startLayerStack, type LayerStack } from './support.js';

let stack: LayerStack;
const log = recordingLogger();
let layer: RunningSemanticLayer;
let toolkit: MCPToolkit;

beforeAll(async () => {
  stack = await startLayerStack({ logger: log.logger });
  ({ layer, toolkit } = stack);
}, 300_000);

afterAll(async () => {
  await stack?.close();
});

describe('the Semantic Layer over MCP', () => {
  it('answers GET /health with 200 once the cards are vectorized', async () => {
    const response = await fetch(`${layer.url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok', vectorized_cards: 3, indexed: true });
  });

  it('lists its tools with input and output schemas to the official MCP client', async () => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(layer.mcpUrl)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        'find_agent',
        'get_agent_card',
        'list_agents',
        'recommend_agents',
        'search_documents',
        'store_document',
      ]);
      const search = tools.find((tool) => tool.name === 'search_documents');
      expect(search?.inputSchema.properties).toHaveProperty('query');
      expect(search?.outputSchema?.properties).toHaveProperty('hits');
    } finally {
      await client.close();
    }
  });

  it('stores documents and finds them by meaning, best first, with metadata and scores', async () => {
    const paris = await toolkit.storeDocument('Paris is the capital and largest city of France.', { source: 'atlas', lang: 'en' });
    expect(paris).toMatchObject({ stored: true, id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    await toolkit.storeDocument('The mitochondria is the powerhouse of the cell.', { source: 'biology' });
    await toolkit.storeDocument('Bread is baked from flour, water, salt and yeast.', { source: 'kitchen' });
    const hits = await toolkit.searchDocuments('What is the capital of France?', 2);
    expect(Array.isArray(hits)).toBe(true);
    if (!Array.isArray(hits)) return;
    expect(hits).toHaveLength(2);
    expect(hits[0]).toMatchObject({ id: paris.id, content: 'Paris is the capital and largest city of France.', metadata: { source: 'atlas', lang: 'en' } });
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(hits[0]!.score).toBeGreaterThan(0.5);
  });

  it('returns an object with an error key for bad input, never a transport error', async () => {
    expect(await toolkit.searchDocuments('   ')).toEqual({ error: 'query must not be empty.' });
    const badMeta = await toolkit.callWithRetry('store_document', {}, { content: 'x', metadata: { pages: 3 } });
    expect(String(badMeta.error)).toMatch(/metadata/);
    const tooBig = await toolkit.storeDocument('x'.repeat(2_001));
    expect(String(tooBig.error)).toMatch(/2001 bytes; the limit is 2000/);
    const wrongType = await toolkit.callWithRetry('search_documents', {}, { query: 42 });
    expect(String(wrongType.error)).toMatch(/query/);
    const tooMany = await toolkit.callWithRetry('search_documents', {}, { query: 'x', max_results: 500 });
    expect(tooMany).toHaveProperty('error');
  });

  it('discovers agents: find, recommend, list and get, with secrets stripped', async () => {
    const found = await toolkit.findAgent('What will the temperature be in Madrid tomorrow?');
    expect(found?.name).toBe('weather');
    const recommended = await toolkit.recommendAgents('break my goal into a plan of steps', 2);
    expect(Array.isArray(recommended) && recommended[0]?.card.name).toBe('planner');
    const listed = await toolkit.listAgents();
    expect(Array.isArray(listed) && listed.map((card) => card.name)).toEqual(['executor', 'planner', 'weather']);
    const weather = await toolkit.getAgentCard('weather');
    expect(weather).toMatchObject({ name: 'weather', version: '1.2.0' });
    expect(await toolkit.getAgentCard('nobody')).toBeNull();
    expect(await toolkit.findAgent('lattice quantum chromodynamics of gluon fields')).toBeNull();
    for (const card of [found, weather, ...(Array.isArray(listed) ? listed : [])]) {
      const text = JSON.stringify(card);
      expect(text).not.toMatch(/SECRET|token|api_key|"auth"/);
    }
  });

  it('repairs itself: a card whose vector is gone is re-indexed from disk on a search miss', async () => {
    const executorId = cardId('executor');
    await layer.store.delete('agent_cards', [executorId]);
    expect((await layer.store.list('agent_cards')).map((record) => record.id)).not.toContain(executorId);
    const found = await toolkit.findAgent('carry out one action and report the outcome');
    expect(found?.name).toBe('executor');
    expect(log.lines.some((line) => line.includes('re-indexed 1 card(s) from disk'))).toBe(true);
    const stored = await layer.store.get('agent_cards', executorId);
    expect(stored?.hasVector).toBe(true);
    expect(await layer.store.count('agent_cards')).toBe(3);
  });
});
