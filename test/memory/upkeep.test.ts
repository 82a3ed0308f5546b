import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { createMemoryService } from '../../runtime/memory/create-memory-service.js';
import { startMemoryService } from '../../runtime/memory/start-memory-service.js';
import { SystemMemory } from '../../runtime/memory/system-memory.js';
import { ScriptedLanguageModel } from '../../runtime/testing/scripted-language-model.js';
import { REDIS_URL, redisScope } from '../support/redis-scope.js';
import { call, modelRuntime, openMemory, remember, search } from './support.js';

// AMS's upkeep over REST and MCP: forgetting by policy, compaction (exact
// duplicates; near-duplicates merged by a scripted generation model),
// last_accessed on search, summary views through a scripted model and a task
// that fails. Real Redis, real all-MiniLM embeddings.

const scope = redisScope();
const models = modelRuntime();

const ago = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

function withModel(model: ScriptedLanguageModel) {
  const opened = scope.track(openMemory({ keyPrefix: scope.prefix, ollamaHost: models.url() }));
  const memory = new SystemMemory({ store: opened.store, embedder: opened.memory.embedder, languageModel: { model, name: 'scripted' } });
  return { app: createMemoryService({ memory }), memory, plain: opened.app, plainMemory: opened.memory };
}

describe('forgetting (POST /v1/long-term-memory/forget)', () => {
  it("applies AMS's policy: age, inactivity, both (with the hard multiplier), budget, type allowlist, pins; dry run by default", async () => {
    const { app } = scope.track(openMemory({ keyPrefix: scope.prefix, ollamaHost: models.url() }));
    const ns = 'forget-a';
    await remember(app, [
      { id: 'f-old-idle', text: 'Old and idle memory about boats', namespace: ns, created_at: ago(100), last_accessed: ago(100) },
      { id: 'f-old-used', text: 'Old but recently used memory about trains', namespace: ns, created_at: ago(100), last_accessed: ago(1) },
      { id: 'f-ancient-used', text: 'Ancient but recently used memory about planes', namespace: ns, created_at: ago(2000), last_accessed: ago(1) },
      { id: 'f-pinned', text: 'Pinned old memory about cars', namespace: ns, created_at: ago(100), last_accessed: ago(100), pinned: true },
      { id: 'f-episode', text: 'Old episode about a bus trip', namespace: ns, created_at: ago(100), last_accessed: ago(100), memory_type: 'episodic' },
      { id: 'f-new', text: 'Fresh memory about bicycles', namespace: ns },
      { id: 'f-elsewhere', text: 'Old memory in another namespace', namespace: 'forget-b', created_at: ago(100), last_accessed: ago(100) },
    ]);
    const forget = (query: string, body: unknown) => call(app, 'POST', `/v1/long-term-memory/forget?namespace=${ns}${query}`, body);

    // Only age: every unpinned record older than 30 days; a dry run unless dry_run=false (AMS's default).
    const age = await forget('', { policy: { max_age_days: 30 } });
    expect(age.status).toBe(200);
    expect(age.body).toEqual({ scanned: 6, deleted: 4, deleted_ids: ['f-ancient-used', 'f-episode', 'f-old-idle', 'f-old-used'], dry_run: true });
    // Age and inactivity: old AND idle, or older than 12 × the age.
    const both = await forget('', { policy: { max_age_days: 30, max_inactive_days: 30 } });
    expect(both.body.deleted_ids).toEqual(['f-ancient-used', 'f-episode', 'f-old-idle']);
    // The allowlist and pinned_ids narrow it.
    const allow = await forget('', { policy: { max_age_days: 30, memory_type_allowlist: ['episodic'] } });
    expect(allow.body.deleted_ids).toEqual(['f-episode']);
    expect((await forget('', { policy: { max_inactive_days: 30 }, pinned_ids: ['f-old-idle'] })).body.deleted_ids).toEqual(['f-episode']);
    // A budget keeps the most recent by AMS's recency score.
    const budget = await forget('', { policy: { budget: 2 } });
    expect(budget.body.deleted_ids).toHaveLength(3);
    expect(budget.body.deleted_ids).not.toContain('f-new');

    // For real: deleted, the other namespace untouched.
    const real = await forget('&dry_run=false', { policy: { max_age_days: 30, max_inactive_days: 30 } });
    expect(real.body).toMatchObject({ deleted: 3, dry_run: false });
    expect((await call(app, 'GET', '/v1/long-term-memory/f-old-idle')).status).toBe(404);
    expect((await call(app, 'GET', '/v1/long-term-memory/f-old-used')).status).toBe(200);
    expect((await call(app, 'GET', '/v1/long-term-memory/f-elsewhere')).status).toBe(200);
    expect((await search(app, { text: 'boats', namespace: { eq: ns } })).memories.map((m) => m.id)).not.toContain('f-old-idle');

    // Bad input is a 400 naming the field.
    const unknownKey = await forget('', { policy: { max_age: 3 } });
    expect(unknownKey.status).toBe(400);
    expect(unknownKey.body.message).toContain('max_age');
    expect((await forget('&limit=0', { policy: {} })).status).toBe(400);
    expect((await forget('&dry_run=perhaps', { policy: {} })).status).toBe(400);
    expect((await call(app, 'POST', '/v1/long-term-memory/forget', { policy: { budget: -1 } })).status).toBe(400);
    expect((await call(app, 'GET', '/v1/long-term-memory/forget')).status).toBe(405);
  });

  it('in token mode forgets only the calling token’s records', async () => {
    const tokens = ['forget-token-aaaaaaaaaa', 'forget-token-bbbbbbbbbb'];
    const service = await startMemoryService({
      port: 0,
      kvUrl: REDIS_URL,
      keyPrefix: `${scope.prefix}tok:`,
      ollamaHost: models.url(),
      env: { MEMORY_AUTH_TOKENS: tokens.join(',') },
    });
    try {
      const post = (token: string, path: string, body: unknown) =>
        fetch(`${service.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }).then(async (r) => ({ status: r.status, body: await r.json() }));
      await post(tokens[0]!, '/v1/long-term-memory/', { memories: [{ id: 'tok-a', text: 'Token A old memory', created_at: ago(90) }] });
      await post(tokens[1]!, '/v1/long-term-memory/', { memories: [{ id: 'tok-b', text: 'Token B old memory', created_at: ago(90) }] });
      const forgotten = await post(tokens[1]!, '/v1/long-term-memory/forget?dry_run=false', { policy: { max_age_days: 30 } });
      expect(forgotten.body).toMatchObject({ scanned: 1, deleted: 1, deleted_ids: ['tok-b'] });
      const stillA = await fetch(`${service.url}/v1/long-term-memory/tok-a`, { headers: { authorization: `Bearer ${tokens[0]}` } });
      expect(stillA.status).toBe(200);
    } finally {
      await service.close();
    }
  });
});

describe('last_accessed on search', () => {
  it('is set (with access_count) on the records a recency-ranked search returns, at most once per 15 minutes, and not without recency', async () => {
    const { app, memory } = scope.track(openMemory({ keyPrefix: scope.prefix, ollamaHost: models.url() }));
    await remember(app, [
      { id: 'la-old', text: 'The user keeps a logbook of sailing trips', namespace: 'la', last_accessed: ago(40) },
      { id: 'la-other', text: 'The user keeps a diary of mountain walks', namespace: 'la-off', last_accessed: ago(40) },
    ]);
    await search(app, { text: 'sailing logbook', namespace: { eq: 'la-off' }, recency_boost: false });
    await memory.settled();
    expect((await call(app, 'GET', '/v1/long-term-memory/la-other')).body.access_count).toBe(0);
    await search(app, { text: 'sailing logbook', namespace: { eq: 'la' } });
    await memory.settled();
    const once = (await call(app, 'GET', '/v1/long-term-memory/la-old')).body;
    expect(once.access_count).toBe(1);
    expect(Date.parse(once.last_accessed)).toBeGreaterThan(Date.parse(ago(1)));
    // Within the interval: unchanged.
    await search(app, { text: 'sailing logbook', namespace: { eq: 'la' } });
    await memory.settled();
    expect((await call(app, 'GET', '/v1/long-term-memory/la-old')).body.access_count).toBe(1);
    // The cache follows the change (the search sees the new last_accessed).
    expect((await search(app, { text: 'sailing logbook', namespace: { eq: 'la' } })).memories[0]!.access_count).toBe(1);
  });
});

describe('compaction', () => {
  it('keeps exact duplicates once without a model, and says semantic merging needs one (REST and the MCP tool)', async () => {
    const opened = scope.track(openMemory({ keyPrefix: scope.prefix, ollamaHost: models.url() }));
    const { app } = opened;
    await remember(
      app,
      [
        { id: 'cx-1', text: 'The office wifi password is on the fridge', namespace: 'cx', last_accessed: ago(5) },
        { id: 'cx-2', text: 'The office wifi password is on the fridge', namespace: 'cx', last_accessed: ago(1) },
        { id: 'cx-3', text: 'The office wifi password is on the fridge', namespace: 'cx-other' },
        { id: 'cx-4', text: 'Lunch is served at noon', namespace: 'cx' },
      ],
      false,
    );
    const compacted = await call(app, 'POST', '/v1/long-term-memory/compact?namespace=cx');
    expect(compacted.status).toBe(200);
    expect(compacted.body.status).toBe(
      'ok, 2 memories remaining after compaction (exact duplicates only: semantic merging needs a generation model, MEMORY_GENERATION_MODEL)',
    );
    // The most recently accessed copy stays; the other namespace's copy is not a duplicate.
    expect((await call(app, 'GET', '/v1/long-term-memory/cx-1')).status).toBe(404);
    expect((await call(app, 'GET', '/v1/long-term-memory/cx-2')).status).toBe(200);
    expect((await call(app, 'GET', '/v1/long-term-memory/cx-3')).status).toBe(200);
    expect((await call(app, 'POST', '/v1/long-term-memory/compact?namespace=cx&scope=all')).status).toBe(400);
  });

  it('merges near-duplicates with the generation model into one new record (AMS merge prompt), leaving unrelated ones', async () => {
    const model = new ScriptedLanguageModel({ replies: ['The user lives in Lyon, France.'] });
    const { app } = withModel(model);
    await remember(app, [
      { id: 'sm-1', text: 'The user lives in Lyon', namespace: 'sm', topics: ['home'] },
      { id: 'sm-2', text: 'The user lives in Lyon.', namespace: 'sm', entities: ['Lyon'] },
      { id: 'sm-3', text: 'The quarterly budget review is in March', namespace: 'sm' },
      { id: 'sm-4', text: 'The user lives in Lyon', namespace: 'sm-elsewhere' },
    ]);
    const compacted = await call(app, 'POST', '/v1/long-term-memory/compact?namespace=sm');
    expect(compacted.body.status).toBe('ok, 2 memories remaining after compaction');
    expect(model.requests).toHaveLength(1);
    const prompt = model.requests[0]!.messages[0]!.content;
    expect(prompt).toContain('You are a memory merging assistant');
    expect(prompt).toContain('1: The user lives in Lyon');
    const listed = await search(app, { namespace: { eq: 'sm' }, limit: 10 });
    const merged = listed.memories.find((m) => m.text === 'The user lives in Lyon, France.')!;
    expect(merged).toMatchObject({ namespace: 'sm', topics: ['home'], entities: ['Lyon'] });
    expect(listed.memories.map((m) => m.id).sort()).toEqual([merged.id, 'sm-3'].sort());
    expect((await call(app, 'GET', '/v1/long-term-memory/sm-4')).status).toBe(200);
  });

  it('is the MCP tool compact_long_term_memories', async () => {
    const service = await startMemoryService({ port: 0, kvUrl: REDIS_URL, keyPrefix: `${scope.prefix}mcp:`, ollamaHost: models.url(), env: {} });
    const client = new Client({ name: 'upkeep-test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
      await client.callTool({
        name: 'create_long_term_memories',
        arguments: { memories: [{ text: 'Same fact' }, { text: 'Same fact' }], deduplicate: false },
      });
      const result = await client.callTool({ name: 'compact_long_term_memories', arguments: {} });
      expect(result.isError ?? false).toBe(false);
      expect((result.structuredContent as { status: string }).status).toMatch(/^ok, 1 memories remaining after compaction/);
    } finally {
      await client.close();
      await service.close();
    }
  });
});

describe('summary views with a generation model', () => {
  it('summarises a partition through the model with the memories in the prompt, and a failing model fails the task', async () => {
    let fail = false;
    const model = new ScriptedLanguageModel({
      replies: [
        (request) => {
          if (fail) throw new Error('model exploded');
          return `Summary of ${request.messages[0]!.content.split('\n').filter((l) => l.startsWith('{')).length} memories.`;
        },
      ],
    });
    const { app, memory } = withModel(model);
    await remember(app, [
      { id: 'sv-1', text: 'Alice likes jazz', namespace: 'sv', user_id: 'alice' },
      { id: 'sv-2', text: 'Alice plays the piano', namespace: 'sv', user_id: 'alice' },
      { id: 'sv-3', text: 'Bob likes football', namespace: 'sv', user_id: 'bob' },
    ]);
    const view = await call(app, 'POST', '/v1/summary-views', {
      source: 'long_term',
      group_by: ['user_id'],
      filters: { namespace: 'sv' },
      prompt: 'Summarise this user.',
    });
    expect(view.status).toBe(200);
    const partition = await call(app, 'POST', `/v1/summary-views/${view.body.id}/partitions/run`, { group: { user_id: 'alice' } });
    expect(partition.body).toMatchObject({
      view_id: view.body.id,
      group: { user_id: 'alice' },
      summary: 'Summary of 2 memories.',
      memory_count: 2,
      empty: false,
    });
    const prompt = model.requests[0]!.messages[0]!.content;
    expect(prompt.startsWith('Summarise this user.\n\nGROUP: {"user_id":"alice"}\n\nMEMORIES:\n')).toBe(true);
    expect(prompt).toContain('"text":"Alice plays the piano"');
    expect(prompt).not.toContain('Bob');
    const empty = await call(app, 'POST', `/v1/summary-views/${view.body.id}/partitions/run`, { group: { user_id: 'carol' } });
    expect(empty.body).toMatchObject({ memory_count: 0, empty: true, empty_reason: 'no_matching_memories' });
    const wrongGroup = await call(app, 'POST', `/v1/summary-views/${view.body.id}/partitions/run`, { group: { namespace: 'sv' } });
    expect(wrongGroup.status).toBe(400);

    fail = true;
    const task = await call(app, 'POST', `/v1/summary-views/${view.body.id}/run`, { task_id: 'sv-task' });
    expect(task.body).toMatchObject({ id: 'sv-task', type: 'summary_view_full_run', status: 'pending', view_id: view.body.id });
    await memory.settled();
    const failed = await call(app, 'GET', '/v1/tasks/sv-task');
    expect(failed.body).toMatchObject({ status: 'failed', error_message: 'model exploded' });
    expect(failed.body.started_at).not.toBeNull();

    expect((await call(app, 'POST', '/v1/summary-views', { source: 'working_memory' })).status).toBe(400);
    expect((await call(app, 'POST', '/v1/summary-views', { source: 'long_term', filters: { text: 'x' } })).status).toBe(400);
    expect((await call(app, 'POST', '/v1/summary-views', { source: 'long_term', filters: { memory_type: 'nonsense' } })).status).toBe(400);
    expect((await call(app, 'GET', '/v1/summary-views/no-such-view')).status).toBe(404);
    expect((await call(app, 'POST', '/v1/summary-views/no-such-view/run', {})).status).toBe(404);
    expect((await call(app, 'GET', '/v1/tasks/no-such-task')).status).toBe(404);
  });
});
