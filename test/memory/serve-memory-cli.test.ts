import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { MemoryHealthSchema } from '../../runtime/memory/memory-responses.js';
import { MemoryRecordResultsSchema } from '../../runtime/memory/memory-records.js';
import { runCli } from '../support/cli.js';
import { freePort } from '../support/net.js';
import { startService } from '../support/processes.js';
import { REDIS_URL, redisScope } from '../support/redis-scope.js';
import { modelRuntime } from './support.js';

const scope = redisScope();
const models = modelRuntime();

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('framework-cli serve memory', () => {
  it('serves system memory over Redis with the model runtime, the flags winning over the environment, and stops on SIGTERM', async () => {
    const port = await freePort();
    const indexDir = mkdtempSync(join(tmpdir(), 'serve-memory-index-'));
    const service = await startService({
      name: 'memory',
      port,
      args: ['serve', 'memory', '--addr', `127.0.0.1:${port}`, '--kv-url', REDIS_URL, '--ollama-host', models.url(), '--json'],
      env: { KV_URL: 'redis://127.0.0.1:1', OLLAMA_HOST: 'http://127.0.0.1:1', MEMORY_PORT: '1', KV_PREFIX: scope.prefix, MEMORY_INDEX_DIR: indexDir },
    });
    try {
      expect(JSON.parse(service.output().split('\n')[0]!)).toEqual({ event: 'listening', url: service.url });
      const health = await fetch(`${service.url}/v1/health`);
      expect(health.status).toBe(200);
      expect(MemoryHealthSchema.parse(await health.json())).toMatchObject({ status: 'ok', kv_store: 'up' });
      expect(
        (await post(`${service.url}/v1/long-term-memory/`, { memories: [{ id: 'cli-1', text: 'The build server is called Hopper', namespace: 'cli' }] }))
          .status,
      ).toBe(200);
      const found = MemoryRecordResultsSchema.parse(
        await (await post(`${service.url}/v1/long-term-memory/search`, { text: 'What is the name of the CI machine?', namespace: { eq: 'cli' } })).json(),
      );
      expect(found.memories.map((m) => m.id)).toEqual(['cli-1']);
      // KV_PREFIX from the environment was used.
      expect(await scope.admin().exists(`${scope.prefix}mem:rec:cli-1`)).toBe(1);
    } finally {
      await service.stop();
    }
    expect(service.process.exitCode).toBe(0);
    // On SIGTERM it saved its copy of the long-term memories for the next start (MEMORY_INDEX_DIR).
    expect(readdirSync(indexDir).some((f) => f.endsWith('.records.json'))).toBe(true);
    rmSync(indexDir, { recursive: true, force: true });
    const last = service
      .output()
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('{"url"'))
      .at(-1);
    expect(JSON.parse(last!)).toEqual({ url: service.url, stopped: true });
  });

  it('explains a taken port, a bad address, bad URLs and a bad environment', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as { port: number }).port;
    try {
      const busy = await runCli(['serve', 'memory', '--addr', `127.0.0.1:${taken}`]);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain(`Port ${taken} on 127.0.0.1 is already in use`);
      expect(busy.stderr).toContain('MEMORY_PORT');
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
    const addr = await runCli(['serve', 'memory', '--addr', 'nowhere']);
    expect(addr.code).toBe(2);
    expect(addr.stderr).toContain('is not host:port');
    const kv = await runCli(['serve', 'memory', '--addr', '127.0.0.1:0', '--kv-url', 'http://127.0.0.1:6379']);
    expect(kv.code).toBe(2);
    expect(kv.stderr).toContain('--kv-url "http://127.0.0.1:6379" is not a redis:// URL');
    const ollama = await runCli(['serve', 'memory', '--addr', '127.0.0.1:0', '--ollama-host', 'ollama:11434']);
    expect(ollama.code).toBe(2);
    expect(ollama.stderr).toContain('--ollama-host "ollama:11434" is not an http(s) URL');
    const env = await runCli(['serve', 'memory', '--addr', '127.0.0.1:0', '--json'], { env: { KV_URL: 'localhost', MEMORY_PORT: 'high' } });
    expect(env.code).toBe(1);
    const error = JSON.parse(env.stdout) as { error: { code: string; message: string } };
    expect(error.error.code).toBe('invalid_config');
    expect(error.error.message).toContain('KV_URL: must be a redis:// or rediss:// URL');
    expect(error.error.message).toContain('MEMORY_PORT: must be a port number from 0 to 65535');
    // Five CLI processes one after another: 20 s ran out in CI at load average 16.
  }, 120_000);
});
