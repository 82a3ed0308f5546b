import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningModelServer } from '../../runtime/model/start-model-server.js';
import type { SemanticConfig } from '../../runtime/semantic/semantic-config.js';
import { MCPToolkit } from '../../runtime/semantic/mcp-toolkit.js';
import { startSemanticLayer, type RunningSemanticLayer } from '../../runtime/semantic/start-semantic-layer.js';
import type { Logger } from '../../runtime/core/logger.js';
import { SEMANTIC_DEFAULTS } from '../../runtime/semantic/semantic-config.js';
import { startEmbeddings } from '../support/embeddings.js';

/** Cards of the test fleet; `weather` carries secrets that must never come back. */
export const CARDS: Record<string, Record<string, unknown>> = {
  'planner.json': {
    name: 'planner',
    description: 'Turns a request into an ordered plan of actions and delegates them.',
    url: 'http://127.0.0.1:8100/',
    version: '0.1.0',
    capabilities: { streaming: 'True', pushNotifications: 'False' },
    skills: [{ id: 'plan', name: 'Planning', description: 'Breaks a goal into steps', tags: ['planning'] }],
  },
  'executor.json': {
    name: 'executor',
    description: 'Carries out one action and reports its outcome.',
    url: 'http://127.0.0.1:8101/',
    version: '0.1.0',
    capabilities: { streaming: 'True', pushNotifications: 'False' },
    skills: [{ id: 'execute', name: 'Execute action', description: 'Performs a task step', tags: ['execution'] }],
  },
  'weather.json': {
    name: 'weather',
    description: 'Answers questions about the weather forecast, temperature and rain for a city.',
    url: 'http://127.0.0.1:8120/',
    version: '1.2.0',
    capabilities: { streaming: 'False', pushNotifications: 'False' },
    skills: [{ id: 'forecast', name: 'Forecast', description: 'Weather forecast for a city', tags: ['weather', 'forecast'] }],
    auth: { type: 'bearer', token: 'tok-SECRET-1234' },
    api_key: 'sk-SECRET-5678',
  },
};

/** A temp project: a cards folder with `CARDS` and a store folder. */
export async function tempProject(): Promise<{ dir: string; cardsDir: string; storeDir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'fw-semantic-'));
  const cardsDir = join(dir, 'agent_cards');
  await mkdir(cardsDir);
  for (const [file, card] of Object.entries(CARDS)) await writeFile(join(cardsDir, file), JSON.stringify(card, null, 2));
  return { dir, cardsDir, storeDir: join(dir, '.framework', 'semantic'), remove: () => rm(dir, { recursive: true, force: true }) };
}

export function layerConfig(overrides: Partial<SemanticConfig> & { cardsDir: string; storeDir: string; ollamaHost: string }): SemanticConfig {
  return {
    host: '127.0.0.1',
    port: 0,
    vectorStore: 'lancedb',
    vectorStoreUrl: undefined,
    embeddingModel: 'all-minilm',
    maxContentBytes: 2_000,
    findThreshold: SEMANTIC_DEFAULTS.findThreshold,
    logLevel: 'debug',
    ...overrides,
  };
}

/** A logger that keeps its lines, to check the spec's log messages. */
export function recordingLogger(): { lines: string[]; logger: Logger } {
  const lines: string[] = [];
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    lines.push(`${level} ${message} ${fields ? JSON.stringify(fields) : ''}`);
  return { lines, logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') } };
}

/** The whole stack for one test file: model runtime, a temp project, an indexed Semantic Layer and a toolkit. */
export interface LayerStack {
  models: RunningModelServer;
  project: Awaited<ReturnType<typeof tempProject>>;
  layer: RunningSemanticLayer;
  toolkit: MCPToolkit;
  close(): Promise<void>;
}

export async function startLayerStack(options: { logger?: Logger } = {}): Promise<LayerStack> {
  const models = await startEmbeddings();
  const project = await tempProject();
  const layer = await startSemanticLayer({
    config: layerConfig({ cardsDir: project.cardsDir, storeDir: project.storeDir, ollamaHost: models.url }),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  await layer.indexing;
  const toolkit = new MCPToolkit({ url: layer.mcpUrl });
  return {
    models,
    project,
    layer,
    toolkit,
    close: async () => {
      await toolkit.close();
      await layer.close();
      await models.close();
      await project.remove();
    },
  };
}
