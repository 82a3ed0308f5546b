import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../runtime/core/logger.js';
import { KvMemoryStore } from '../../runtime/memory/kv-memory-store.js';
import { completeRecord, LongTermRecordInputSchema } from '../../runtime/memory/memory-records.js';
import { SNAPSHOT_FORMAT, snapshotName } from '../../runtime/memory/vector-cache-snapshot.js';
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
    const data = readdirSync(dir).find((f) => f.endsWith('.data'))!;
    truncateSync(join(dir, data), 10);
    const damaged: string[] = [];
    const third = open({ snapshotDir: dir, lines: damaged });
    expect(await ids(third, 9)).toEqual(['other']);
    expect(damaged.some((l) => l.includes('data file does not match its header'))).toBe(true);
    await third.close();
  });

  it('refuses a file with one byte changed (checksum), and a cut-short HNSW file, and loads from Redis instead', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mem-snap-'));
    dirs.push(dir);
    await deleteKeys(scope.admin(), scope.prefix);
    const first = open({ snapshotDir: dir });
    await first.putRecords({ records: Array.from({ length: 50 }, (_, i) => ({ record: record(`c-${i}`), vector: vector(i) })), deduplicate: false });
    await first.load();
    await first.indexed();
    await first.close();

    // One byte of the vectors flipped, size unchanged: only the checksum can tell.
    const data = join(
      dir,
      readdirSync(dir).find((f) => f.endsWith('.data'))!,
    );
    const bytes = readFileSync(data);
    bytes[100] = bytes[100]! ^ 0xff;
    writeFileSync(data, bytes);
    const flipped: string[] = [];
    const second = open({ snapshotDir: dir, lines: flipped });
    const { hits } = await second.search({ vector: vector(3), filters: {}, limit: 1, offset: 0 });
    expect(hits[0]!.record.id).toBe('c-3');
    expect(second.cachedRecords).toBe(50);
    expect(flipped.some((l) => l.includes('data file does not match its header'))).toBe(true);
    expect(flipped.some((l) => l.includes('long-term memory snapshot read'))).toBe(false);
    // Its close writes a sound snapshot again.
    await second.close();

    const hnsw = join(
      dir,
      readdirSync(dir).find((f) => f.endsWith('.hnsw'))!,
    );
    truncateSync(hnsw, 1000);
    const cut: string[] = [];
    const third = open({ snapshotDir: dir, lines: cut });
    expect(await ids(third, 5)).toHaveLength(50);
    expect(cut.some((l) => l.includes('hnsw file does not match its header'))).toBe(true);
    await third.close();
  });

  it('ignores a snapshot of an older format with a log line, and replaces it with the current format on close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mem-snap-'));
    dirs.push(dir);
    await deleteKeys(scope.admin(), scope.prefix);
    const first = open({ snapshotDir: dir });
    await first.putRecords({ records: [0, 1].map((i) => ({ record: record(`f-${i}`), vector: vector(i) })), deduplicate: false });
    await first.load();
    await first.close();
    // The header rewritten as format 2 wrote it (files .records.json, .vec, .flags).
    const headerFile = join(
      dir,
      readdirSync(dir).find((f) => f.endsWith('.json') && !f.includes('.records.'))!,
    );
    const header = JSON.parse(readFileSync(headerFile, 'utf8')) as Record<string, unknown>;
    const oldId = header.id as string;
    writeFileSync(headerFile, JSON.stringify({ ...header, format: 2, hnsw: true, files: undefined }));
    writeFileSync(headerFile.replace(/\.json$/, `-${oldId}.vec`), Buffer.alloc(16));

    const lines: string[] = [];
    const second = open({ snapshotDir: dir, lines });
    expect(await ids(second, 1)).toEqual(['f-0', 'f-1']);
    expect(lines.some((l) => l.includes('long-term memories load from Redis') && l.includes('format 2'))).toBe(true);
    await second.close();
    // The next save is of the current format, and the old files are gone.
    expect((JSON.parse(readFileSync(headerFile, 'utf8')) as { format: number }).format).toBe(SNAPSHOT_FORMAT);
    expect(readdirSync(dir).filter((f) => f.includes(oldId))).toEqual([]);
  });

  it('is written atomically: a save cut short before its header leaves the previous snapshot in use, and no temporary file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mem-snap-'));
    dirs.push(dir);
    await deleteKeys(scope.admin(), scope.prefix);
    const first = open({ snapshotDir: dir });
    await first.putRecords({ records: [0, 1, 2].map((i) => ({ record: record(`a-${i}`), vector: vector(i) })), deduplicate: false });
    await first.load();
    await first.close();
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    // What a process killed mid-save leaves: data files of a new id, half written, and no header naming them.
    const name = readdirSync(dir)
      .find((f) => f.endsWith('.json') && !f.includes('.records.'))!
      .replace(/\.json$/, '');
    const stray = '00000000-0000-4000-8000-000000000000';
    writeFileSync(join(dir, `${name}-${stray}.data`), Buffer.alloc(7));
    writeFileSync(join(dir, `${name}-${stray}.records.json`), '{"holes":[');

    const lines: string[] = [];
    const second = open({ snapshotDir: dir, lines });
    await second.load();
    expect(lines.some((l) => l.includes('long-term memory snapshot read') && l.includes('"count":3'))).toBe(true);
    expect(await ids(second, 0)).toEqual(['a-0', 'a-1', 'a-2']);
    await second.close();
  });
});

// Issue 33: projects sharing a Redis have their own prefixes; a snapshot
// file of one prefix, even renamed to another's name in the same folder,
// is never served by the other's store (its Redis history differs).
describe('snapshots of another key prefix', () => {
  it("are never loaded: another prefix's records, renamed into this prefix's snapshot, are not answered", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mem-snap-prefix-'));
    dirs.push(dir);
    const theirs = `${scope.prefix}theirs:`;
    const ours = `${scope.prefix}ours:`;
    const openAt = (keyPrefix: string) => scope.track(new KvMemoryStore({ url: REDIS_URL, keyPrefix, embeddingModel: 'test-16', snapshotDir: dir }));
    const other = openAt(theirs);
    await other.putRecords({ records: [0, 1, 2].map((i) => ({ record: record(`theirs-${i}`), vector: vector(i) })), deduplicate: false });
    await other.load();
    await other.indexed();
    await other.close();
    // Our store has a history of its own in Redis.
    const seed = openAt(ours);
    await seed.putRecords({ records: [{ record: record('ours-0'), vector: vector(50) }], deduplicate: false });
    await seed.close();
    for (const file of readdirSync(dir).filter((f) => f.startsWith(snapshotName(theirs)))) {
      const renamed = file.replace(snapshotName(theirs), snapshotName(ours));
      writeFileSync(join(dir, renamed), readFileSync(join(dir, file)));
    }

    const mine = openAt(ours);
    await mine.load();
    expect(await ids(mine, 1)).toEqual(['ours-0']);
    expect(mine.cachedRecords).toBe(1);
  });
});
