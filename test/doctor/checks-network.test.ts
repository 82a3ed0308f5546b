import { fileURLToPath } from 'node:url';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkGuardian } from '../../runtime/doctor/check-guardian.js';
import { checkModelRuntime } from '../../runtime/doctor/check-model-runtime.js';
import { checkModelStore } from '../../runtime/doctor/check-model-store.js';
import { checkPolicyEngine } from '../../runtime/doctor/check-policy-engine.js';
import { checkRedis } from '../../runtime/doctor/check-redis.js';
import { checkSemanticLayer } from '../../runtime/doctor/check-semantic-layer.js';
import { checkMemoryService } from '../../runtime/doctor/check-memory-service.js';
import { startMemoryService } from '../../runtime/memory/start-memory-service.js';
import { Redis } from 'ioredis';
import { deleteKeys } from '../support/redis-keys.js';
import { REDIS_URL } from '../support/redis-scope.js';
import { startGuardian, type RunningGuardian } from '../../runtime/guardian/start-guardian.js';
import { ModelStore } from '../../runtime/model/model-store.js';
import { startModelServer, type RunningModelServer } from '../../runtime/model/start-model-server.js';
import { startPolicyServer, type RunningPolicyServer } from '../../runtime/policy/server/start-policy-server.js';
import { startSemanticLayer } from '../../runtime/semantic/start-semantic-layer.js';
import { defaultModelStore } from '../model/support/default-model.js';
import { layerConfig, tempProject } from '../semantic/support.js';
import { closedPort, holdPort } from './support.js';

const POLICIES = fileURLToPath(new URL('../../policies', import.meta.url));

let models: RunningModelServer;
let emptyModels: RunningModelServer;
let policy: RunningPolicyServer;
let guardian: RunningGuardian;
let lonelyGuardian: RunningGuardian;

beforeAll(async () => {
  const { store } = await defaultModelStore();
  models = await startModelServer({ store, host: '127.0.0.1', port: 0 });
  emptyModels = await startModelServer({ store: new ModelStore({ dir: mkdtempSync(join(tmpdir(), 'fw-doctor-empty-store-')) }), host: '127.0.0.1', port: 0 });
  policy = await startPolicyServer({ dir: POLICIES, port: 0, watch: false });
  guardian = await startGuardian({ host: '127.0.0.1', port: 0, opaUrl: policy.url });
  lonelyGuardian = await startGuardian({ host: '127.0.0.1', port: 0, opaUrl: `http://127.0.0.1:${await closedPort()}`, policyTimeoutMs: 500 });
}, 120_000);

afterAll(async () => {
  await Promise.all([models?.close(), emptyModels?.close(), policy?.close(), guardian?.close(), lonelyGuardian?.close()]);
});

describe('checkRedis', () => {
  it('PINGs the real Redis at KV_URL', async () => {
    const check = await checkRedis({ env: { KV_URL: 'redis://127.0.0.1:6379' } });
    expect(check).toMatchObject({ name: 'redis', status: 'ok', required: true });
    expect(check.detail).toMatch(/^PONG from redis:\/\/127\.0\.0\.1:6379 \(Redis \d/);
  });

  it('is missing (required) when SESSION_KV_URL points at a closed port, and hides the password', async () => {
    const port = await closedPort();
    const started = Date.now();
    const check = await checkRedis({ env: { SESSION_KV_URL: `redis://user:secret@127.0.0.1:${port}`, KV_URL: 'redis://127.0.0.1:6379' }, timeoutMs: 1000 });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(check).toMatchObject({ status: 'missing', required: true, fix: expect.stringContaining('start redis-server') });
    expect(check.detail).toContain(`redis://127.0.0.1:${port}: connect ECONNREFUSED`);
    expect(JSON.stringify(check)).not.toContain('secret');
  });

  it('is only a warning when nothing asks for Redis', async () => {
    // No URL and the memory backend: the default address is checked but not required.
    const check = await checkRedis({ env: {} });
    expect(check.required).toBe(false);
    expect(check.status).toBe('ok'); // This machine runs Redis on the default address.
  });
});

describe('checkModelRuntime', () => {
  it('lists the models of our model runtime', async () => {
    const check = await checkModelRuntime({ env: { OLLAMA_HOST: models.url, EMBEDDING_MODEL: 'smollm2' } });
    expect(check).toMatchObject({ name: 'model runtime', status: 'ok', required: true });
    expect(check.detail).toContain('smollm2');
  });

  it('warns with the pull command for each expected model the runtime lacks', async () => {
    const check = await checkModelRuntime({ env: { OLLAMA_HOST: emptyModels.url } });
    expect(check).toMatchObject({ status: 'warn', fix: 'framework-cli model pull smollm2 && framework-cli model pull all-minilm' });
    expect(check.detail).toContain('no models');
  });

  it('is missing when OLLAMA_HOST points at nothing', async () => {
    const port = await closedPort();
    const check = await checkModelRuntime({ env: { OLLAMA_HOST: `http://127.0.0.1:${port}` } });
    expect(check).toMatchObject({ status: 'missing', required: true, fix: expect.stringContaining('framework-cli model serve') });
    expect(check.detail).toContain('connection refused');
  });

  it('agrees with the machine model store on what is pulled', async () => {
    const store = await checkModelStore({ env: { HOME: process.env.HOME ?? '' } });
    const runtime = await checkModelRuntime({ env: { OLLAMA_HOST: models.url } });
    expect(store.status).toBe(runtime.status);
  });
});

describe('checkPolicyEngine', () => {
  it('is ok when our policy server answers /health', async () => {
    expect(await checkPolicyEngine({ env: { OPA_URL: policy.url } })).toMatchObject({
      name: 'policy engine',
      status: 'ok',
      detail: `healthy at ${policy.url}/health`,
    });
  });

  it('is missing at a configured address that does not answer, a warning at the default one', async () => {
    const port = await closedPort();
    expect(await checkPolicyEngine({ env: { OPA_URL: `http://127.0.0.1:${port}` } })).toMatchObject({ status: 'missing', required: true });
    expect(await checkPolicyEngine({ env: { OPA_URL: 'not a url' } })).toMatchObject({ status: 'missing', detail: 'OPA_URL="not a url" is not a URL' });
  });

  it('gives up within the time limit on a server that never answers', async () => {
    const silent = await holdPort({ silent: true });
    const started = Date.now();
    const check = await checkPolicyEngine({ env: { OPA_URL: `http://127.0.0.1:${silent.port}` }, timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(check.detail).toContain('no answer within 300 ms');
    await silent.close();
  });
});

describe('checkGuardian', () => {
  it('is skipped without GUARDIAN_URL', async () => {
    expect(await checkGuardian({ env: {} })).toBeUndefined();
  });

  it('is ok when the Guardian and its policy engine are up, a warning when its engine is down', async () => {
    expect(await checkGuardian({ env: { GUARDIAN_URL: guardian.url } })).toMatchObject({ status: 'ok', required: true });
    const degraded = await checkGuardian({ env: { GUARDIAN_URL: lonelyGuardian.url } });
    expect(degraded).toMatchObject({ status: 'warn', detail: expect.stringContaining('cannot reach its policy engine') });
  });

  it('is missing when GUARDIAN_URL points at nothing', async () => {
    const port = await closedPort();
    expect(await checkGuardian({ env: { GUARDIAN_URL: `http://127.0.0.1:${port}` } })).toMatchObject({
      status: 'missing',
      fix: expect.stringContaining('serve guardian'),
    });
  });
});

describe('checkSemanticLayer', () => {
  it('asks /health at the origin of the MCP URL; missing when configured and down', async () => {
    const port = await closedPort();
    const check = await checkSemanticLayer({ env: { SEMANTIC_LAYER_URL: `http://127.0.0.1:${port}/mcp` } });
    expect(check).toMatchObject({ name: 'semantic layer', status: 'missing', required: true });
    expect(check.detail).toContain(`http://127.0.0.1:${port}/health`);
  });

  it('is a warning when our Semantic Layer is up but degraded, with its reason', async () => {
    const project = await tempProject();
    const layer = await startSemanticLayer({
      config: layerConfig({ cardsDir: project.cardsDir, storeDir: project.storeDir, ollamaHost: `http://127.0.0.1:${await closedPort()}` }),
    });
    try {
      const check = await checkSemanticLayer({ env: { SEMANTIC_LAYER_URL: layer.mcpUrl } });
      expect(check).toMatchObject({ status: 'warn', detail: expect.stringContaining('waiting for the model runtime') });
    } finally {
      await layer.close();
      await project.remove();
    }
  });

  it('is a warning when something else answers there', async () => {
    const check = await checkSemanticLayer({ env: { SEMANTIC_LAYER_URL: `${guardian.url}/mcp` } });
    expect(check).toMatchObject({ status: 'warn', detail: expect.stringContaining('not as a Semantic Layer does') });
  });
});

describe('checkMemoryService', () => {
  it('is missing when AGENT_MEMORY_URL points at nothing, and asks /v1/health', async () => {
    const port = await closedPort();
    const check = await checkMemoryService({ env: { AGENT_MEMORY_URL: `http://127.0.0.1:${port}` } });
    expect(check).toMatchObject({ name: 'memory service', status: 'missing', required: true, fix: expect.stringContaining('serve memory') });
    expect(check.detail).toContain(`http://127.0.0.1:${port}/v1/health`);
  });

  it('is ok with its Redis up, a warning naming the store when Redis is down, and a warning for something else', async () => {
    const prefix = `fwtest:doctor-${process.pid}-${Date.now()}:`;
    const up = await startMemoryService({ port: 0, kvUrl: REDIS_URL, keyPrefix: prefix, ollamaHost: `http://127.0.0.1:${await closedPort()}`, env: {} });
    const down = await startMemoryService({
      port: 0,
      kvUrl: `redis://127.0.0.1:${await closedPort()}`,
      ollamaHost: `http://127.0.0.1:${await closedPort()}`,
      env: {},
    });
    try {
      expect(await checkMemoryService({ env: { AGENT_MEMORY_URL: up.url } })).toMatchObject({ status: 'ok', detail: `healthy at ${up.url}/v1/health` });
      expect(await checkMemoryService({ env: { AGENT_MEMORY_URL: down.url } })).toMatchObject({
        status: 'warn',
        detail: expect.stringContaining('cannot reach its key-value store at redis://127.0.0.1:'),
      });
      expect(await checkMemoryService({ env: { AGENT_MEMORY_URL: guardian.url } })).toMatchObject({
        status: 'warn',
        detail: expect.stringContaining('not as a memory service does'),
      });
    } finally {
      await up.close();
      await down.close();
      const admin = new Redis(REDIS_URL);
      await deleteKeys(admin, prefix);
      await admin.quit();
    }
  });
});
