import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningModelServer } from '../../runtime/model/start-model-server.js';
import { MCPToolkit } from '../../runtime/semantic/mcp-toolkit.js';
import { runCli } from '../support/cli.js';
import { freePort } from '../support/net.js';
import { startService, type Service } from '../support/processes.js';
import { startEmbeddings } from '../support/embeddings.js';
import { tempProject } from '../semantic/support.js';

let models: RunningModelServer;
let project: Awaited<ReturnType<typeof tempProject>>;
let service: Service | undefined;

beforeAll(async () => {
  models = await startEmbeddings();
  project = await tempProject();
}, 300_000);

afterAll(async () => {
  await service?.stop();
  await models?.close();
  await project?.remove();
});

describe('framework-cli serve semantic-layer', () => {
  it('serves MCP at /mcp and turns healthy once the cards folder is indexed', async () => {
    const port = await freePort();
    service = await startService({
      name: 'semantic-layer',
      args: ['serve', 'semantic-layer', '--addr', `127.0.0.1:${port}`, '--cards', project.cardsDir, '--store-dir', project.storeDir, '--json'],
      port,
      env: { OLLAMA_HOST: models.url },
    });
    expect(await (await fetch(`${service.url}/health`)).json()).toMatchObject({ status: 'ok', vectorized_cards: 3 });
    const toolkit = new MCPToolkit({ url: `${service.url}/mcp` });
    expect((await toolkit.findAgent('weather forecast for a city'))?.name).toBe('weather');
    await toolkit.close();
    expect(service.output()).toContain('{"event":"listening"');
  }, 60_000);

  it('rejects a bad --addr and a bad environment with a message naming the fix', async () => {
    const bad = await runCli(['serve', 'semantic-layer', '--addr', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--addr "nope" is not host:port/);
    const env = await runCli(['serve', 'semantic-layer'], { env: { VECTOR_STORE: 'weaviate' } });
    expect(env.code).toBe(1);
    expect(env.stderr).toMatch(/VECTOR_STORE_URL/);
  });
});
