import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Listening } from '../../runtime/core/server/listen.js';
import { AgentMemory } from '../../runtime/memory/agent-memory.js';
import { createMemoryService } from '../../runtime/memory/create-memory-service.js';
import { KvMemoryStore } from '../../runtime/memory/kv-memory-store.js';
import { checkMemoryAuth, loadMemoryConfig } from '../../runtime/memory/memory-config.js';
import { SystemMemory } from '../../runtime/memory/system-memory.js';
import { OllamaEmbedder } from '../../runtime/llm/embedder.js';
import { createSwarm } from '../../runtime/scaffold/create-swarm.js';
import { ProjectFileSchema } from '../../runtime/supervisor/project-file.js';
import { REDIS_URL, redisScope } from '../support/redis-scope.js';

// The memory service had no authentication: anyone who could reach it could
// read and erase a swarm's memory. It now has the Agent Memory Server's token
// mode, required whenever it listens beyond loopback, and `create swarm`
// gives its memory service and agents one token.

const TOKEN = 'memory-token-0123456789abcdef';
const scope = redisScope();
let store: KvMemoryStore;
let server: Listening;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fw-sec-memory-'));
  const embedder = new OllamaEmbedder({ host: 'http://127.0.0.1:9', model: 'all-minilm' });
  store = new KvMemoryStore({ url: REDIS_URL, keyPrefix: scope.prefix, embeddingModel: embedder.model });
  const app = createMemoryService({ memory: new SystemMemory({ store, embedder }), authTokens: [TOKEN] });
  server = await listen(app, { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await server?.close();
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the memory service in token mode', () => {
  it('answers 401 with a challenge without the token or with a wrong one; health stays open', async () => {
    const attempts: Array<Record<string, string>> = [{}, { authorization: 'Bearer wrong-token-0123456789' }, { authorization: TOKEN }];
    for (const headers of attempts) {
      const response = await fetch(`${server.url}/v1/working-memory/s1`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await response.json()).toMatchObject({ code: 'unauthorized' });
    }
    const erase = await fetch(`${server.url}/v1/long-term-memory?memory_ids=a`, { method: 'DELETE' });
    expect(erase.status).toBe(401);
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
  });

  it('serves the client that sends the token (option, AGENT_MEMORY_TOKEN or AGENT_MEMORY_TOKEN_FILE)', async () => {
    const file = join(dir, 'token');
    await writeFile(file, `${TOKEN}\n`, { mode: 0o600 });
    for (const client of [
      new AgentMemory({ url: server.url, contextId: 's1', token: TOKEN, env: {} }),
      new AgentMemory({ url: server.url, contextId: 's1', env: { AGENT_MEMORY_TOKEN: TOKEN } }),
      new AgentMemory({ url: server.url, contextId: 's1', env: { AGENT_MEMORY_TOKEN_FILE: file } }),
    ]) {
      expect((await client.getWorkingMemory()).session_id).toBe('s1');
    }
    await expect(new AgentMemory({ url: server.url, contextId: 's1', env: {} }).getWorkingMemory()).rejects.toThrow(/401|unauthorized|token/i);
  });

  it('refuses to start without tokens beyond loopback, or with MEMORY_AUTH=token, unless MEMORY_AUTH=disabled', () => {
    const none = loadMemoryConfig({ env: {} });
    expect(() => checkMemoryAuth(none, '127.0.0.1')).not.toThrow();
    expect(() => checkMemoryAuth(none, '0.0.0.0')).toThrow(/MEMORY_AUTH_TOKENS/);
    expect(() => checkMemoryAuth(loadMemoryConfig({ env: { MEMORY_AUTH: 'token' } }), '127.0.0.1')).toThrow(/MEMORY_AUTH=token/);
    expect(() => checkMemoryAuth(loadMemoryConfig({ env: { MEMORY_AUTH: 'disabled' } }), '0.0.0.0')).not.toThrow();
    expect(() => checkMemoryAuth(loadMemoryConfig({ env: { MEMORY_AUTH_TOKENS: TOKEN } }), '0.0.0.0')).not.toThrow();
    expect(() => loadMemoryConfig({ env: { MEMORY_AUTH_TOKENS: 'short' } })).toThrow(/at least 16/);
    expect(() => loadMemoryConfig({ env: { MEMORY_AUTH_TOKENS_FILE: join(dir, 'missing') } })).toThrow(/MEMORY_AUTH_TOKENS_FILE/);
  });

  it('create swarm writes one token (0600) that its memory service requires and its agents send', async () => {
    const root = join(dir, 'team');
    await createSwarm({ dir: root, name: 'team' });
    const token = join(root, '.framework/secrets/memory-token');
    expect((await stat(token)).mode & 0o777).toBe(0o600);
    expect((await readFile(token, 'utf8')).trim().length).toBeGreaterThanOrEqual(32);
    const project = ProjectFileSchema.parse(JSON.parse(await readFile(join(root, '.framework/project.json'), 'utf8')));
    expect(project.services.find((s) => s.kind === 'memory')?.env).toMatchObject({ MEMORY_AUTH_TOKENS_FILE: '.framework/secrets/memory-token' });
    for (const agent of project.services.filter((s) => s.kind === 'agent'))
      expect(agent.env).toMatchObject({ AGENT_MEMORY_TOKEN_FILE: '.framework/secrets/memory-token' });
  });
});
