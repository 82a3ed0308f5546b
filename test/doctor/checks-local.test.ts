import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDocker } from '../../runtime/doctor/check-docker.js';
import { dockerEngineAnswers } from '../support/docker.js';
import { checkModelStore } from '../../runtime/doctor/check-model-store.js';
import { checkNode } from '../../runtime/doctor/check-node.js';
import { checkVectorStore } from '../../runtime/doctor/check-vector-store.js';
import { closedPort } from './support.js';

describe('checkNode', () => {
  it('accepts the running Node and refuses one older than 20.19', () => {
    expect(checkNode()).toMatchObject({ name: 'node', status: 'ok', required: true });
    expect(checkNode({ version: '20.18.3' })).toMatchObject({
      status: 'missing',
      detail: expect.stringContaining('older than 20.19.0'),
      fix: expect.stringContaining('Node 20.19.0'),
    });
    expect(checkNode({ version: '22.1.0' }).status).toBe('ok');
  });
});

describe('checkVectorStore', () => {
  it('accepts a writable LanceDB directory, or one that can be created', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fw-doctor-vs-'));
    expect(await checkVectorStore({ env: { VECTOR_STORE_DIR: dir } })).toMatchObject({
      status: 'ok',
      detail: `LanceDB directory ${dir} writable`,
      required: true,
    });
    const later = await checkVectorStore({ env: {}, cwd: dir });
    expect(later.status).toBe('ok');
    expect(later.detail).toContain(`${join(dir, '.framework/semantic')} will be created`);
  });

  it('is missing when the path runs through a file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fw-doctor-vs-'));
    writeFileSync(join(dir, 'file'), 'x');
    const check = await checkVectorStore({ env: { VECTOR_STORE_DIR: join(dir, 'file', 'lance') } });
    expect(check).toMatchObject({
      status: 'missing',
      detail: expect.stringContaining(`${join(dir, 'file')} is not a directory`),
      fix: expect.stringContaining('VECTOR_STORE_DIR'),
    });
  });

  it('asks Weaviate for readiness when VECTOR_STORE=weaviate', async () => {
    const port = await closedPort();
    const check = await checkVectorStore({ env: { VECTOR_STORE: 'weaviate', VECTOR_STORE_URL: `http://127.0.0.1:${port}` } });
    expect(check).toMatchObject({ name: 'vector store', status: 'missing', required: true });
    expect(check.detail).toContain(`http://127.0.0.1:${port}/v1/.well-known/ready (connection refused)`);
  });
});

describe('checkModelStore', () => {
  it('lists what the machine store holds and names the pull command for what it lacks', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'fw-doctor-models-'));
    const check = await checkModelStore({ env: { FRAMEWORK_MODELS_DIR: empty } });
    expect(check).toMatchObject({ status: 'warn', required: false, fix: 'framework-cli model pull smollm2 && framework-cli model pull all-minilm' });
    expect(check.detail).toContain('no models pulled');
  });
});

describe('checkDocker', () => {
  it('is a warning, never missing, when there is no docker command', async () => {
    const check = await checkDocker({ env: { PATH: mkdtempSync(join(tmpdir(), 'fw-doctor-empty-path-')) } });
    expect(check).toMatchObject({ name: 'docker', status: 'warn', required: false, detail: expect.stringContaining('no docker command') });
  });

  it('reports the real docker of this machine as ok or warn (engine or not)', async () => {
    const check = await checkDocker();
    expect(['ok', 'warn']).toContain(check.status);
    expect(check.required).toBe(false);
  });

  it.skipIf(!dockerEngineAnswers())('names the engine, Compose and a missing base image (with the fix) when an engine answers', async () => {
    const missing = await checkDocker({ env: { ...process.env, FRAMEWORK_BASE_IMAGE: 'framework-no-such-image:0' }, timeoutMs: 20_000 });
    expect(missing).toMatchObject({ name: 'docker', status: 'warn', required: false });
    expect(missing.detail).toMatch(/^Docker engine \S+; (docker compose|docker-compose) \S+; base image framework-no-such-image:0 not present/);
    expect(missing.fix).toContain('FRAMEWORK_BASE_IMAGE');
  });
});
