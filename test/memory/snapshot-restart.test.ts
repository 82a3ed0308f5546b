import { mkdtempSync, readdirSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../runtime/core/logger.js';
import { KvMemoryStore } from '../../runtime/memory/kv-memory-store.js';
import { completeRecord, LongTermRecordInputSchema } from '../../runtime/memory/memory-records.js';
import { deleteKeys } from '../support/redis-keys.js';
import { REDIS_URL, redisScope } from '../support/redis-scope.js';

// The memory store's snapshot (issue 23): a restarted process reads its copy
// of the long-term memories and its HNSW index from MEMORY_INDEX_DIR, then
// applies what changed in Redis since; a snapshot of another Redis history,
// or a damaged one, is ignored and everything loads from Redis.

const scope = redisScope();
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const DIM = 16;
function vector(seed: number): number[] {
  return Array.from({ length: DIM }, (_, i) => Math.sin(seed * 7.3 + i * 1.7));
}
const record = (id: string) => completeRecord({ record: LongTermRecordInputSchema.parse({ id, text: `memory ${id}` }), at: new Date().toISOString() });

function open(options: { snapshotDir?: string; lines?: string[] } = {}) {
  return scope.track(
    new KvMemoryStore({
      url: REDIS_URL,
      keyPrefix: scope.prefix,
      embeddingModel: 'test-16',
      ...(options.snapshotDir ? { snapshotDir: options.snapshotDir } : {}),
      ...(options.lines ? { logger: createLogger({ name: 't', level: 'debug', write: (line) => options.lines!.push(line) }) } : {}),
    }),
  );
}

async function ids(store: KvMemoryStore, seed: number, limit = 500): Promise<string[]> {
  const { hits } = await store.search({ vector: vector(seed), filters: {}, limit, offset: 0 });
  return hits.map((h) => h.record.id).sort();
}

describe('the long-term memory snapshot', () => {
  it('is saved on close, read at the next start, and brought up to date from the change stream', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mem-snap-'));
    dirs.push(dir);
    const first = open({ snapshotDir: dir });
    await first.putRecords({ records: Array.from({ length: 300 }, (_, i) => ({ record: record(`s-${i}`), vector: vector(i) })), deduplicate: false });
    await first.load();
    await first.indexed();
    await first.close();
    expect(readdirSync(dir).filter((f) => f.endsWith('.hnsw'))).toHaveLength(1);

    // Changes made while no process with the snapshot runs.
    const writer = open();
    await writer.putRecords({ records: [{ record: record('s-new'), vector: vector(1000) }], deduplicate: false });
    await writer.deleteRecords(['s-7']);
    await writer.close();

    const lines: string[] = [];
    const restarted = open({ snapshotDir: dir, lines });
    await restarted.load();
    expect(lines.some((l) => l.includes('long-term memory snapshot read') && l.includes('"count":300'))).toBe(true);
    expect(restarted.cachedRecords).toBe(300);
    const found = await ids(restarted, 1000);
    expect(found).toContain('s-new');
    expect(found).not.toContain('s-7');
    expect(found).toHaveLength(300);
    // The nearest record to a stored vector is that record (through the loaded index).
    const { hits } = await restarted.search({ vector: vector(42), filters: {}, limit: 1, offset: 0 });
    expect(hits[0]!.record.id).toBe('s-42');
    await restarted.close();
  });

  it('is ignored when Redis holds another history (flushed and rewritten) or the files are damaged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mem-snap-'));
    dirs.push(dir);
    const first = open({ snapshotDir: dir });
    await first.putRecords({ records: [0, 1, 2].map((i) => ({ record: record(`h-${i}`), vector: vector(i) })), deduplicate: false });
    await first.load();
    await first.close();

    // Redis loses everything (a new epoch), then gets other records.
    await deleteKeys(scope.admin(), scope.prefix);
    const writer = open();
    await writer.putRecords({ records: [{ record: record('other'), vector: vector(9) }], deduplicate: false });
    await writer.close();
    const lines: string[] = [];
    const second = open({ snapshotDir: dir, lines });
    expect(await ids(second, 9)).toEqual(['other']);
    await second.close();

    // A damaged data file: the snapshot is not used, Redis is.
    const vec = readdirSync(dir).find((f) => f.endsWith('.vec'))!;
    truncateSync(join(dir, vec), 10);
    const damaged: string[] = [];
    const third = open({ snapshotDir: dir, lines: damaged });
    expect(await ids(third, 9)).toEqual(['other']);
    expect(damaged.some((l) => l.includes('do not match its header'))).toBe(true);
    await third.close();
  });
});
