import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMemoryService, type RunningMemoryService } from '../../runtime/memory/start-memory-service.js';
import { REDIS_URL, redisScope } from '../support/redis-scope.js';
import { modelRuntime } from './support.js';

// Token mode (MEMORY_AUTH_TOKENS): searches and prompts answer only the
// caller's token's records (not those written without tokens, owned by none:
// issue 33 fails closed on them), in every search mode, over REST and MCP,
// on a replica that learns owners from the change stream, and after a
// restart from the snapshot.

const scope = redisScope();
const models = modelRuntime();
const TOKENS = ['search-token-aaaaaaaaaa', 'search-token-bbbbbbbbbb'] as const;
const dir = mkdtempSync(join(tmpdir(), 'token-search-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const start = () =>
  startMemoryService({
    port: 0,
    kvUrl: REDIS_URL,
    keyPrefix: scope.prefix,
    ollamaHost: models.url(),
    indexDir: dir,
    env: { MEMORY_AUTH_TOKENS: TOKENS.join(',') },
  });
const request = (service: RunningMemoryService, token: string, path: string, body: unknown) =>
  fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
const found = async (service: RunningMemoryService, token: string, body: Record<string, unknown>) =>
  ((await request(service, token, '/v1/long-term-memory/search', { limit: 10, ...body })).body.memories as Array<{ id: string }>).map((m) => m.id).sort();

describe('searches in token mode', () => {
  it("answer only the caller's records (not unowned ones) in every mode, in prompts, over MCP, on a replica and after a restart", async () => {
    // A record written without tokens has no owner: no token finds it (it stays, for the service without tokens).
    const open = await startMemoryService({ port: 0, kvUrl: REDIS_URL, keyPrefix: scope.prefix, ollamaHost: models.url(), env: {} });
    await request(open, '', '/v1/long-term-memory/', { memories: [{ id: 'ts-shared', text: 'The office coffee machine is on floor two' }] });
    await open.close();

    const service = await start();
    const replica = await start();
    try {
      await request(service, TOKENS[0], '/v1/long-term-memory/', { memories: [{ id: 'ts-a', text: 'The coffee order for Alice is a flat white' }] });
      await request(service, TOKENS[1], '/v1/long-term-memory/', { memories: [{ id: 'ts-b', text: 'The coffee order for Bob is an espresso' }] });

      for (const mode of ['semantic', 'keyword', 'hybrid']) {
        expect(await found(service, TOKENS[0], { text: 'coffee', search_mode: mode })).toEqual(['ts-a']);
        expect(await found(service, TOKENS[1], { text: 'coffee', search_mode: mode })).toEqual(['ts-b']);
      }
      expect(await found(service, TOKENS[1], {})).toEqual(['ts-b']);
      // The other service learnt the owners from the change stream.
      expect(await found(replica, TOKENS[0], { text: 'coffee order' })).toEqual(['ts-a']);

      const prompt = await request(service, TOKENS[1], '/v1/memory/prompt', { query: 'What coffee does Alice drink?', long_term_search: true });
      expect((prompt.body.long_term_memories as Array<{ id: string }>).map((m) => m.id).sort()).toEqual(['ts-b']);

      const client = new Client({ name: 'token-search', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKENS[0]}` } } }),
      );
      const viaMcp = await client.callTool({ name: 'search_long_term_memory', arguments: { text: 'coffee order for Bob' } });
      expect(((viaMcp.structuredContent as { memories: Array<{ id: string }> }).memories ?? []).map((m) => m.id).sort()).toEqual(['ts-a']);
      await client.close();
    } finally {
      await replica.close();
      await service.close();
    }

    // After a restart from the saved snapshot, owners still hold.
    const restarted = await start();
    try {
      expect(await found(restarted, TOKENS[0], { text: 'coffee' })).toEqual(['ts-a']);
    } finally {
      await restarted.close();
    }
    const reopened = await startMemoryService({ port: 0, kvUrl: REDIS_URL, keyPrefix: scope.prefix, ollamaHost: models.url(), env: {} });
    try {
      expect(await found(reopened, '', { text: 'coffee machine' })).toContain('ts-shared');
    } finally {
      await reopened.close();
    }
  });
});
