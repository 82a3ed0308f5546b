import { copyFile, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@lancedb/lancedb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import type { Logger } from '../../runtime/core/logger.js';
import { recordsToArrow } from '../../runtime/semantic/lance-rows.js';
import { LanceVectorStore } from '../../runtime/semantic/lance-vector-store.js';
import type { VectorRecord } from '../../runtime/semantic/vector-store.js';
import { prng } from '../../bench/support/seeded-random.js';

let dir: string;
let store: LanceVectorStore | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lance-store-'));
});

afterEach(async () => {
  await store?.close();
  store = undefined;
  await rm(dir, { recursive: true, force: true });
});

function doc(options: { id: string; vector: number[]; content?: string; metadata?: Record<string, string>; uri?: string }): VectorRecord {
  return {
    id: options.id,
    vector: options.vector,
    content: options.content ?? `content of ${options.id}`,
    metadata: options.metadata ?? {},
    uri: options.uri ?? '',
  };
}

function unit(vector: number[]): number[] {
  const norm = Math.hypot(...vector);
  return vector.map((x) => x / norm);
}

function cosine(a: number[], b: number[]): number {
  return a.reduce((sum, x, i) => sum + x * b[i]!, 0);
}

function recordingLogger(): Logger & { messages: string[]; entries: Array<{ message: string; fields: Record<string, unknown> | undefined }> } {
  const messages: string[] = [];
  const entries: Array<{ message: string; fields: Record<string, unknown> | undefined }> = [];
  const push = (message: string, fields?: Record<string, unknown>) => {
    messages.push(message);
    entries.push({ message, fields });
  };
  return { messages, entries, debug: push, info: push, warn: push, error: push };
}

async function rejection(promise: Promise<unknown>): Promise<FrameworkError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!FrameworkError.isInstance(error)) throw new Error(`expected a FrameworkError, got ${String(error)}`);
  return error;
}

describe('LanceVectorStore', () => {
  it('stores and reads back records (round trip)', async () => {
    store = await LanceVectorStore.open({ dir });
    expect(store.kind).toBe('lancedb');
    expect(store.location).toBe(dir);
    expect(store.dimensions).toBeUndefined();
    expect(await store.ready()).toBe(true);
    expect(await store.count('documents')).toBe(0);
    expect(await store.search('documents', [1, 0, 0], { limit: 3 })).toEqual([]);

    await store.upsert('documents', [doc({ id: 'a', vector: [1, 0, 0], content: 'Alpha', metadata: { lang: 'en', source: 'a.md' } })]);
    await store.upsert('agent_cards', [doc({ id: 'weather', vector: [0, 1, 0], content: 'Weather agent', uri: 'file:///cards/weather.json' })]);

    expect(store.dimensions).toBe(3);
    expect(await store.get('documents', 'a')).toEqual({ id: 'a', content: 'Alpha', metadata: { lang: 'en', source: 'a.md' }, uri: '', hasVector: true });
    expect(await store.get('agent_cards', 'weather')).toMatchObject({ uri: 'file:///cards/weather.json', hasVector: true });
    expect(await store.get('documents', 'missing')).toBeUndefined();
    expect(await store.count('documents')).toBe(1);
    expect(await store.count('agent_cards')).toBe(1);
  });

  it('replaces by id: no duplicates across or within batches', async () => {
    store = await LanceVectorStore.open({ dir });
    await store.upsert('documents', [doc({ id: 'a', vector: [1, 0], content: 'first' }), doc({ id: 'b', vector: [0, 1] })]);
    await store.upsert('documents', [doc({ id: 'a', vector: [0, 1], content: 'second', metadata: { v: '2' } })]);
    await store.upsert('documents', [doc({ id: 'c', vector: [1, 1], content: 'c1' }), doc({ id: 'c', vector: [1, 1], content: 'c2' })]);

    expect(await store.count('documents')).toBe(3);
    expect(await store.get('documents', 'a')).toMatchObject({ content: 'second', metadata: { v: '2' } });
    expect(await store.get('documents', 'c')).toMatchObject({ content: 'c2' });
    const [best] = await store.search('documents', [0, 1], { limit: 1 });
    expect(best?.score).toBeCloseTo(1, 5);
  });

  it('refuses invalid vectors, naming the record, and stores nothing of the batch', async () => {
    store = await LanceVectorStore.open({ dir });
    const bad: Array<[string, number[]]> = [
      ['empty', []],
      ['nan', [1, Number.NaN, 0]],
      ['zero', [0, 0, 0]],
      ['infinite', [1, Number.POSITIVE_INFINITY, 0]],
      ['float32-overflow', [1e39, 0, 0]],
    ];
    for (const [id, vector] of bad) {
      const error = await rejection(store.upsert('documents', [doc({ id: 'good', vector: [1, 0, 0] }), doc({ id, vector })]));
      expect(error.code).toBe('invalid_request');
      expect(error.message).toContain(`"${id}"`);
    }
    expect(await store.count('documents')).toBe(0);
    expect(store.dimensions).toBeUndefined();

    await store.upsert('documents', [doc({ id: 'good', vector: [1, 0, 0] })]);
    const wrong = await rejection(store.upsert('documents', [doc({ id: 'other', vector: [0, 1, 0] }), doc({ id: 'short', vector: [1, 0] })]));
    expect(wrong.code).toBe('invalid_request');
    expect(wrong.message).toContain('"short"');
    expect(wrong.message).toContain('3 long');
    expect(await store.count('documents')).toBe(1);
    expect(await store.get('documents', 'other')).toBeUndefined();

    expect((await rejection(store.search('documents', [0, 0, 0], { limit: 1 }))).code).toBe('invalid_request');
    expect((await rejection(store.search('documents', [1, 0], { limit: 1 }))).code).toBe('invalid_request');
    expect((await rejection(store.search('documents', [1, 0, 0], { limit: 0 }))).code).toBe('invalid_request');
  });

  it('ranks by cosine similarity, best first, with score = 1 - distance', async () => {
    store = await LanceVectorStore.open({ dir });
    await store.upsert('documents', [
      doc({ id: 'opposite', vector: [-1, 0, 0] }),
      doc({ id: 'orthogonal', vector: [0, 1, 0] }),
      doc({ id: 'same-direction-longer', vector: [3, 0, 0] }),
      doc({ id: 'close', vector: [0.8, 0.6, 0] }),
      doc({ id: 'half', vector: [0.5, 0, Math.sqrt(0.75)] }),
    ]);
    const hits = await store.search('documents', [2, 0, 0], { limit: 5 });
    expect(hits.map((hit) => hit.id)).toEqual(['same-direction-longer', 'close', 'half', 'orthogonal', 'opposite']);
    const scores = hits.map((hit) => hit.score);
    [1, 0.8, 0.5, 0, -1].forEach((expected, i) => expect(scores[i]).toBeCloseTo(expected, 5));
    expect(hits[0]).toEqual({ id: 'same-direction-longer', content: 'content of same-direction-longer', metadata: {}, uri: '', score: expect.any(Number) });
    expect(await store.search('documents', [1, 0, 0], { limit: 2 })).toHaveLength(2);
  });

  it('filters on metadata pairs (ANDed), and a quote in a value cannot break out of the literal', async () => {
    store = await LanceVectorStore.open({ dir });
    await store.upsert('documents', [
      doc({ id: 'en-faq', vector: [1, 0], metadata: { lang: 'en', kind: 'faq' } }),
      doc({ id: 'en-doc', vector: [0.9, 0.1], metadata: { lang: 'en', kind: 'doc' } }),
      doc({ id: 'fr-faq', vector: [1, 0.05], metadata: { lang: 'fr', kind: 'faq' } }),
      doc({ id: 'quoted', vector: [0, 1], metadata: { author: "O'Brien", path: 'C:\\docs\\a.md' } }),
      doc({ id: 'eq-key', vector: [0.5, 0.5], metadata: { 'a=b': 'c' } }),
    ]);
    const ids = async (filter: Record<string, string>) => (await store!.search('documents', [1, 0], { limit: 10, filter })).map((hit) => hit.id).sort();

    expect(await ids({ lang: 'en' })).toEqual(['en-doc', 'en-faq']);
    expect(await ids({ lang: 'en', kind: 'faq' })).toEqual(['en-faq']);
    expect(await ids({ kind: 'faq' })).toEqual(['en-faq', 'fr-faq']);
    expect(await ids({ lang: 'de' })).toEqual([]);
    expect(await ids({})).toHaveLength(5);
    expect(await ids({ author: "O'Brien" })).toEqual(['quoted']);
    expect(await ids({ path: 'C:\\docs\\a.md' })).toEqual(['quoted']);
    expect(await ids({ 'a=b': 'c' })).toEqual(['eq-key']);
    expect(await ids({ a: 'b=c' })).toEqual([]);
    // Attempts to end the literal and widen the predicate match nothing (and do not fail).
    expect(await ids({ lang: "en') OR true OR array_has(metadata_tags, 'x" })).toEqual([]);
    expect(await ids({ lang: "x' OR '1'='1" })).toEqual([]);
    expect(await ids({ "lang') OR true --": 'en' })).toEqual([]);
  });

  it('lists records with hasVector, including a zero vector written behind the store', async () => {
    store = await LanceVectorStore.open({ dir });
    await store.upsert('agent_cards', [doc({ id: 'planner', vector: [0, 1, 0, 0], uri: 'file:///cards/planner.json' })]);
    await store.close();

    // An older store kept cards without a real vector: write one straight through LanceDB.
    const db = await connect(dir);
    const table = await db.openTable('agent_cards');
    const legacy = doc({ id: 'legacy', vector: [0, 0, 0, 0], content: 'Legacy agent', uri: 'file:///cards/legacy.json', metadata: { name: 'legacy' } });
    await table.add(recordsToArrow({ records: [legacy], vectors: [new Float32Array(4)], dimensions: 4 }));
    table.close();
    db.close();

    store = await LanceVectorStore.open({ dir });
    const listed = (await store.list('agent_cards')).sort((a, b) => a.id.localeCompare(b.id));
    expect(listed).toEqual([
      { id: 'legacy', content: 'Legacy agent', metadata: { name: 'legacy' }, uri: 'file:///cards/legacy.json', hasVector: false },
      { id: 'planner', content: 'content of planner', metadata: {}, uri: 'file:///cards/planner.json', hasVector: true },
    ]);
    expect(await store.get('agent_cards', 'legacy')).toMatchObject({ hasVector: false });
    expect((await store.search('agent_cards', [1, 1, 1, 1], { limit: 10 })).map((hit) => hit.id)).toEqual(['planner']);
    expect(await store.list('documents')).toEqual([]);
  });

  it('deletes by id and counts', async () => {
    store = await LanceVectorStore.open({ dir });
    await store.upsert(
      'documents',
      ['a', 'b', "c'd", 'e'].map((id, i) => doc({ id, vector: [1, i] })),
    );
    await store.delete('documents', ['a', "c'd", 'never-stored']);
    expect(await store.count('documents')).toBe(2);
    expect(await store.get('documents', "c'd")).toBeUndefined();
    expect((await store.list('documents')).map((r) => r.id).sort()).toEqual(['b', 'e']);
    await store.delete('documents', []);
    await store.delete('agent_cards', ['x']);
    expect(await store.count('documents')).toBe(2);
  });

  it('persists across reopening the directory', async () => {
    store = await LanceVectorStore.open({ dir });
    await store.upsert('documents', [doc({ id: 'a', vector: [1, 0, 0], metadata: { lang: 'en' } }), doc({ id: 'b', vector: [0, 1, 0] })]);
    await store.close();

    const closed = await rejection(store.count('documents'));
    expect(closed.code).toBe('store_unavailable');
    expect(closed.message).toContain(dir);
    expect(await store.ready()).toBe(false);

    store = await LanceVectorStore.open({ dir });
    expect(store.dimensions).toBe(3);
    expect(await store.count('documents')).toBe(2);
    expect(await store.get('documents', 'a')).toMatchObject({ metadata: { lang: 'en' }, hasVector: true });
    expect((await store.search('documents', [0, 1, 0], { limit: 1 }))[0]?.id).toBe('b');
    const wrong = await rejection(store.upsert('documents', [doc({ id: 'c', vector: [1, 0] })]));
    expect(wrong.code).toBe('invalid_request');
  });

  it('reports an unusable directory as store_unavailable naming it', async () => {
    const file = join(dir, 'not-a-directory');
    await writeFile(file, 'x');
    const error = await rejection(LanceVectorStore.open({ dir: file }));
    expect(error.code).toBe('store_unavailable');
    expect(error.message).toContain(file);
    expect(JSON.stringify(error.toJSON())).not.toContain('    at ');
  });

  it('answers from an in-memory HNSW mirror that matches exact search, saves it, and loads it back only while it matches the table', async () => {
    let logger = recordingLogger();
    store = await LanceVectorStore.open({ dir, logger });
    const random = prng(7);
    const vectors = Array.from({ length: 2_000 }, () => unit(Array.from({ length: 32 }, () => random() - 0.5)));
    // shard 0..3 (500 each, a large filtered subset: ANN then filter), rare (20 records: scored exactly)
    const records = vectors.map((vector, i) => doc({ id: `d${i}`, vector, metadata: { shard: String(i % 4), ...(i % 100 === 0 ? { rare: 'yes' } : {}) } }));
    for (let at = 0; at < records.length; at += 500) await store.upsert('documents', records.slice(at, at + 500));

    const exact = (query: number[], keep: (i: number) => boolean = () => true) =>
      vectors
        .map((v, i) => ({ id: `d${i}`, i, score: v.reduce((sum, x, k) => sum + x * query[k]!, 0) }))
        .filter((entry) => keep(entry.i))
        .sort((a, b) => b.score - a.score);
    let agree = 0;
    for (let probe = 0; probe < 40; probe++) {
      const query = unit(vectors[probe * 37]!.map((x) => x + (random() - 0.5) * 0.2));
      const hits = await store.search('documents', query, { limit: 5 });
      expect(hits).toHaveLength(5);
      if (hits[0]?.id === exact(query)[0]?.id) agree++;
      expect(hits[0]?.score).toBeLessThanOrEqual(exact(query)[0]!.score + 1e-5);
    }
    expect(agree).toBeGreaterThanOrEqual(38);
    // Filters: every hit matches, `limit` hits when enough match, the rare pair answered exactly.
    const query = vectors[5]!;
    const shard = await store.search('documents', query, { limit: 20, filter: { shard: '1' } });
    expect(shard).toHaveLength(20);
    expect(shard.every((hit) => hit.metadata.shard === '1')).toBe(true);
    const rare = await store.search('documents', query, { limit: 30, filter: { rare: 'yes', shard: '0' } });
    expect(rare.map((hit) => hit.id)).toEqual(exact(query, (i) => i % 100 === 0 && i % 4 === 0).map((entry) => entry.id));
    expect(await store.search('documents', query, { limit: 5, filter: { shard: 'none' } })).toEqual([]);

    // Replace one (its old vector must not be found) and delete one.
    await store.upsert('documents', [doc({ id: 'd1', vector: vectors[0]!.map((x) => -x), metadata: { shard: '9' } })]);
    await store.delete('documents', ['d2']);
    expect((await store.search('documents', vectors[1]!, { limit: 1 }))[0]?.id).not.toBe('d1');
    expect((await store.search('documents', vectors[2]!, { limit: 3 })).map((hit) => hit.id)).not.toContain('d2');
    expect(
      (
        await store.search(
          'documents',
          vectors[0]!.map((x) => -x),
          { limit: 1 },
        )
      )[0],
    ).toMatchObject({ id: 'd1', metadata: { shard: '9' } });
    expect(await store.search('documents', query, { limit: 5, filter: { shard: '9' } })).toHaveLength(1);
    await store.close();

    // Reopened: the index saved on close matches the table and is loaded, not rebuilt.
    logger = recordingLogger();
    store = await LanceVectorStore.open({ dir, logger });
    expect(logger.entries.find((e) => e.message === 'lancedb collection mirrored')?.fields).toMatchObject({ records: 1_999, index: 'loaded' });
    expect(
      (
        await store.search(
          'documents',
          vectors[0]!.map((x) => -x),
          { limit: 1 },
        )
      )[0]?.id,
    ).toBe('d1');
    expect((await store.search('documents', vectors[3]!, { limit: 1 }))[0]?.id).toBe('d3');
    await store.close();

    // Someone else writes the table: the saved index no longer matches and is rebuilt from the vectors.
    const db = await connect(dir);
    const table = await db.openTable('documents');
    const extra = unit(Array.from({ length: 32 }, () => random() - 0.5));
    await table.add(recordsToArrow({ records: [doc({ id: 'outsider', vector: extra })], vectors: [Float32Array.from(extra)], dimensions: 32 }));
    table.close();
    db.close();
    logger = recordingLogger();
    store = await LanceVectorStore.open({ dir, logger });
    expect(logger.entries.find((e) => e.message === 'lancedb collection mirrored')?.fields).toMatchObject({ records: 2_000, index: 'built' });
    expect((await store.search('documents', extra, { limit: 1 }))[0]?.id).toBe('outsider');
  });

  it('loads the saved graph and vectors only when their files match the manifest; a damaged, cut or missing file is rebuilt with a warning naming why', async () => {
    const random = prng(11);
    const vectors = Array.from({ length: 600 }, () => unit(Array.from({ length: 16 }, () => random() - 0.5)));
    store = await LanceVectorStore.open({ dir });
    await store.upsert(
      'documents',
      vectors.map((vector, i) => doc({ id: `d${i}`, vector, metadata: { shard: String(i % 3) } })),
    );
    await store.delete('documents', ['d7']); // a free label in the saved files
    await store.close();
    store = undefined;
    const files = ['documents.hnsw', 'documents.vectors', 'documents.hnsw.json'];
    for (const file of files) await copyFile(join(dir, file), join(dir, `${file}.good`));
    const restoreGood = async () => {
      for (const file of files) await copyFile(join(dir, `${file}.good`), join(dir, file));
    };
    const flipByte = async (file: string, at: (size: number) => number) => {
      const bytes = await readFile(join(dir, file));
      const i = at(bytes.byteLength);
      bytes[i] = bytes[i]! ^ 0x40;
      await writeFile(join(dir, file), bytes);
    };
    /** Opens the store, checks how its mirror was made and that it answers like an exact search (the nearest of a few stored vectors is itself, d7 is gone). */
    const reopen = async (expected: 'loaded' | 'built') => {
      const logger = recordingLogger();
      store = await LanceVectorStore.open({ dir, logger });
      expect(logger.entries.find((e) => e.message === 'lancedb collection mirrored')?.fields).toMatchObject({ records: 599, index: expected });
      // Every hit's score is its own vector's cosine with the query (the vectors file put each vector at its label), and a stored
      // vector finds itself (the graph walk of a two-thread build may miss one in a hundred: four of five are asked).
      let found = 0;
      for (const i of [0, 1, 8, 299, 599]) {
        const hits = await store.search('documents', vectors[i]!, { limit: 3 });
        for (const hit of hits) expect(hit.score).toBeCloseTo(cosine(vectors[Number(hit.id.slice(1))]!, vectors[i]!), 5);
        if (hits[0]?.id === `d${i}`) found++;
      }
      expect(found).toBeGreaterThanOrEqual(4);
      expect((await store.search('documents', vectors[7]!, { limit: 600 })).map((hit) => hit.id)).not.toContain('d7');
      const filtered = await store.search('documents', vectors[4]!, { limit: 5, filter: { shard: '1' } });
      expect(filtered[0]?.id).toBe('d4');
      expect(filtered.every((hit) => hit.metadata.shard === '1')).toBe(true);
      await store.close();
      store = undefined;
      return logger.entries.filter((e) => e.message.startsWith('saved vector index'));
    };

    expect(await reopen('loaded')).toEqual([]);
    const damages: Array<{ damage: () => Promise<unknown>; reason: RegExp }> = [
      { damage: () => truncate(join(dir, 'documents.vectors'), 5_000), reason: /vectors file does not match the manifest/ },
      { damage: () => flipByte('documents.vectors', (size) => size - 3), reason: /vectors file does not match the manifest/ },
      { damage: () => flipByte('documents.hnsw', (size) => Math.floor(size / 2)), reason: /index file does not match the manifest/ },
      { damage: () => truncate(join(dir, 'documents.hnsw'), 100), reason: /index file does not match the manifest/ },
      { damage: () => rm(join(dir, 'documents.vectors')), reason: /could not be read \(ENOENT/ },
      { damage: () => writeFile(join(dir, 'documents.hnsw.json'), '{"format":3,'), reason: /manifest is unreadable/ },
    ];
    for (const { damage, reason } of damages) {
      await restoreGood();
      await damage();
      const warnings = await reopen('built');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({
        message: 'saved vector index not loaded; rebuilding it from the table',
        fields: { collection: 'documents', reason: expect.stringMatching(reason) },
      });
      // The rebuild saved whole files again.
      expect(await reopen('loaded')).toEqual([]);
    }

    // A manifest of the format before (no vectors file) is rebuilt without a warning, with an info line saying why.
    await restoreGood();
    const manifest = JSON.parse(await readFile(join(dir, 'documents.hnsw.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(join(dir, 'documents.hnsw.json'), JSON.stringify({ ...manifest, format: 2, files: undefined }));
    const logger = recordingLogger();
    store = await LanceVectorStore.open({ dir, logger });
    expect(logger.entries.find((e) => e.message === 'lancedb collection mirrored')?.fields).toMatchObject({ index: 'built' });
    expect(logger.entries.find((e) => e.message.startsWith('saved vector index'))).toMatchObject({
      message: 'saved vector index out of date; rebuilding it from the table',
      fields: { reason: expect.stringContaining('format 2') },
    });
  });

  it('takes the metadata of a row whose JSON is unusable from its tags, whether the mirror is rebuilt or loaded', async () => {
    store = await LanceVectorStore.open({ dir });
    const vectors = [unit([1, 0.1, 0]), unit([0.9, 0.2, 0.1]), unit([0, 1, 0])];
    await store.upsert(
      'documents',
      vectors.map((vector, i) => doc({ id: `d${i}`, vector, metadata: { shard: String(i % 2), lang: 'en' } })),
    );
    await store.close();
    // Written by something else: d1's JSON is broken, its tags hold the truth.
    const db = await connect(dir);
    const table = await db.openTable('documents');
    await table.update({ where: "id = 'd1'", values: { metadata_json: '{not json' } });
    table.close();
    db.close();
    for (const expected of ['built', 'loaded'] as const) {
      const logger = recordingLogger();
      store = await LanceVectorStore.open({ dir, logger });
      expect(logger.entries.find((e) => e.message === 'lancedb collection mirrored')?.fields).toMatchObject({ records: 3, index: expected });
      const hits = await store.search('documents', vectors[0]!, { limit: 5, filter: { shard: '1', lang: 'en' } });
      expect(hits.map((hit) => [hit.id, hit.metadata])).toEqual([['d1', { shard: '1', lang: 'en' }]]);
      await store.close();
      store = undefined;
    }
  });
});
