import { afterEach, describe, expect, it } from 'vitest';
import type { RunningModelServer } from '../../runtime/model/start-model-server.js';
import { MCPToolkit } from '../../runtime/semantic/mcp-toolkit.js';
import { startSemanticLayer, type RunningSemanticLayer } from '../../runtime/semantic/start-semantic-layer.js';
import { freePort, waitFor } from '../support/net.js';
import { startEmbeddings } from '../support/embeddings.js';
import { layerConfig, recordingLogger, tempProject } from './support.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function healthOf(layer: RunningSemanticLayer): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${layer.url}/health`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('Semantic Layer start-up, health and restarts', () => {
  it('is degraded (503) while the model runtime cannot embed, logs it, then indexes and turns healthy', async () => {
    const project = await tempProject();
    cleanups.push(() => project.remove());
    const modelPort = await freePort();
    const log = recordingLogger();
    const layer = await startSemanticLayer({
      config: layerConfig({ cardsDir: project.cardsDir, storeDir: project.storeDir, ollamaHost: `http://127.0.0.1:${modelPort}` }),
      logger: log.logger,
    });
    cleanups.push(() => layer.close());
    const degraded = await healthOf(layer);
    expect(degraded.status).toBe(503);
    expect(degraded.body.status).toBe('degraded');
    await waitFor(async () => log.lines.some((line) => line.includes('could not be embedded')), '"could not be embedded" in the log');
    expect(await layer.store.count('agent_cards')).toBe(0);

    const models: RunningModelServer = await startEmbeddings(modelPort);
    cleanups.push(() => models.close());
    await layer.indexing;
    const healthy = await healthOf(layer);
    expect(healthy.status).toBe(200);
    expect(healthy.body).toMatchObject({ status: 'ok', vectorized_cards: 3 });
  }, 120_000);

  it('re-indexes from disk on restart without duplicating cards, keeps documents, and drops cards whose file is gone', async () => {
    const project = await tempProject();
    cleanups.push(() => project.remove());
    const models = await startEmbeddings();
    cleanups.push(() => models.close());
    const config = layerConfig({ cardsDir: project.cardsDir, storeDir: project.storeDir, ollamaHost: models.url });
    const first = await startSemanticLayer({ config });
    await first.indexing;
    const toolkit = new MCPToolkit({ url: first.mcpUrl });
    await toolkit.storeDocument('The Rhine flows through Basel.', { source: 'rivers' });
    await toolkit.close();
    await first.close();

    const { rm } = await import('node:fs/promises');
    await rm(`${project.cardsDir}/weather.json`);
    const log = recordingLogger();
    const second = await startSemanticLayer({ config, logger: log.logger });
    cleanups.push(() => second.close());
    await second.indexing;
    expect(await second.store.count('agent_cards')).toBe(2);
    expect((await second.store.list('agent_cards')).map((record) => record.metadata.name).sort()).toEqual(['executor', 'planner']);
    expect(await second.store.count('documents')).toBe(1);
    expect(log.lines.some((line) => line.includes('card is not present on disk'))).toBe(true);
  }, 120_000);

  it('callWithRetry reconnects across a server restart, reusing one session between calls', async () => {
    const project = await tempProject();
    cleanups.push(() => project.remove());
    const models = await startEmbeddings();
    cleanups.push(() => models.close());
    const port = await freePort();
    const config = layerConfig({ cardsDir: project.cardsDir, storeDir: project.storeDir, ollamaHost: models.url, port });
    let layer = await startSemanticLayer({ config });
    await layer.indexing;
    const toolkit = new MCPToolkit({ url: layer.mcpUrl, retryDelayMs: 50 });
    cleanups.push(() => toolkit.close());
    await toolkit.storeDocument('Saturn has rings of ice and rock.', { source: 'space' });
    const before = await toolkit.callWithRetry('list_agents', {}, {});
    expect(before).toHaveProperty('agents');
    await toolkit.searchDocuments('rings', 1);
    expect(layer.sessionCount()).toBe(1);

    await layer.close();
    const down = await toolkit.callWithRetry('list_agents', { maxRetries: 1 }, {});
    expect(String(down.error)).toMatch(/fetch failed|ECONNREFUSED|after 2 attempts/);

    layer = await startSemanticLayer({ config });
    cleanups.push(() => layer.close());
    await layer.indexing;
    const hits = await toolkit.searchDocuments('planet with rings', 1);
    expect(Array.isArray(hits) && hits[0]?.content).toBe('Saturn has rings of ice and rock.');
    // The old session was unknown to the new server ("Session terminated"): one new session, reused.
    await toolkit.findAgent('plan my work');
    expect(layer.sessionCount()).toBe(1);
  }, 120_000);
});
