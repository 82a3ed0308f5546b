import { DataType, Field, FixedSizeList, Float32, List, makeData, RecordBatch, Schema, Struct, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { z } from 'zod';
import { metadataTags } from './metadata-tags.js';
import type { StoredRecord, VectorHit, VectorRecord } from './vector-store.js';

/** The columns every LanceDB table of the store has; `vector` is a fixed-size list of float32. */
export const LANCE_COLUMNS = ['id', 'vector', 'content', 'uri', 'metadata_json', 'metadata_tags'] as const;

/** The columns returned by searches and reads that do not need the vector. */
export const LANCE_TEXT_COLUMNS = ['id', 'content', 'uri', 'metadata_json', 'metadata_tags'];

const MetadataSchema = z.record(z.string(), z.string());
const TAGS_TYPE = new List(new Field('item', new Utf8(), true));

/**
 * The Arrow schema of a store table for vectors of `dimensions` floats.
 *
 * @example
 * const schema = lanceSchema({ dimensions: 384 });
 */
export function lanceSchema(options: { dimensions: number }): Schema {
  return new Schema([
    new Field('id', new Utf8(), false),
    new Field('vector', new FixedSizeList(options.dimensions, new Field('item', new Float32(), true)), false),
    new Field('content', new Utf8(), false),
    new Field('uri', new Utf8(), false),
    new Field('metadata_json', new Utf8(), false),
    new Field('metadata_tags', TAGS_TYPE, false),
  ]);
}

/**
 * The dimension of the `vector` column of an existing table, or `undefined`
 * when the schema has no fixed-size-list `vector` column.
 *
 * @example
 * vectorDimensions({ schema: await table.schema() }); // 384
 */
export function vectorDimensions(options: { schema: Schema }): number | undefined {
  // LanceDB (CommonJS) hands back schemas of its own copy of apache-arrow: no `instanceof`.
  const type = options.schema.fields.find((field) => field.name === 'vector')?.type;
  return type && DataType.isFixedSizeList(type) ? type.listSize : undefined;
}

/**
 * Records as one Arrow table with exactly `lanceSchema` (no type inference,
 * so an empty metadata map or a first batch of one row cannot change types).
 * `vectors` are the float32 copies the caller validated.
 *
 * @example
 * const data = recordsToArrow({ records, vectors, dimensions: 384 });
 * await table.add(data);
 */
export function recordsToArrow(options: { records: readonly VectorRecord[]; vectors: readonly Float32Array[]; dimensions: number }): Table {
  const { records, vectors, dimensions } = options;
  const schema = lanceSchema({ dimensions });
  const flat = new Float32Array(records.length * dimensions);
  vectors.forEach((vector, i) => flat.set(vector, i * dimensions));
  const strings = (values: string[]) => vectorFromArray(values, new Utf8()).data[0]!;
  const children = [
    strings(records.map((r) => r.id)),
    makeData({
      type: schema.fields[1]!.type as FixedSizeList<Float32>,
      length: records.length,
      nullCount: 0,
      child: makeData({ type: new Float32(), length: flat.length, data: flat }),
    }),
    strings(records.map((r) => r.content)),
    strings(records.map((r) => r.uri)),
    strings(records.map((r) => JSON.stringify(r.metadata))),
    vectorFromArray(
      records.map((r) => metadataTags({ metadata: r.metadata })),
      TAGS_TYPE,
    ).data[0]!,
  ];
  const struct = makeData({ type: new Struct(schema.fields), length: records.length, nullCount: 0, children });
  return new Table(schema, [new RecordBatch(schema, struct)]);
}

/** A row as LanceDB's `toArray()` gives it (Arrow vectors for list columns). */
export type LanceRow = Record<string, unknown>;

/**
 * A stored vector as plain numbers; `undefined` when the row has none.
 *
 * @example
 * rowVector({ row: { vector: new Float32Array([1, 0]) } }); // [1, 0]
 */
export function rowVector(options: { row: LanceRow }): number[] | undefined {
  const value = options.row.vector;
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'object' && Symbol.iterator in value) return Array.from(value as Iterable<number>, Number);
  return undefined;
}

/**
 * Whether `value` (from `JSON.parse`) is an object of strings that
 * `MetadataSchema` would give back as it is: the common row skips a zod
 * pass (0.1-0.2 s of a 100k restart). A `__proto__` key, which zod leaves
 * out, goes through zod.
 */
function isPlainStringRecord(value: unknown): value is Record<string, string> {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key in value) {
    if (key === '__proto__' || typeof (value as Record<string, unknown>)[key] !== 'string') return false;
  }
  return true;
}

/**
 * The metadata of a row: `metadata_json` checked by a schema, else rebuilt
 * from `metadata_tags` (a row written by something else).
 *
 * @example
 * rowMetadata({ row: { metadata_json: '{"lang":"en"}' } }); // { lang: 'en' }
 */
export function rowMetadata(options: { row: LanceRow }): Record<string, string> {
  const { row } = options;
  if (typeof row.metadata_json === 'string') {
    try {
      const value: unknown = JSON.parse(row.metadata_json);
      if (isPlainStringRecord(value)) return value;
      const parsed = MetadataSchema.safeParse(value);
      if (parsed.success) return parsed.data;
    } catch {
      // Not JSON: fall back to the tags.
    }
  }
  const metadata: Record<string, string> = {};
  const tags = row.metadata_tags;
  if (tags !== null && typeof tags === 'object' && Symbol.iterator in tags) {
    for (const tag of tags as Iterable<unknown>) {
      if (typeof tag !== 'string') continue;
      const at = tag.indexOf('=');
      if (at > 0) metadata[decodeKey(tag.slice(0, at))] = tag.slice(at + 1);
    }
  }
  return metadata;
}

/**
 * A row as a `StoredRecord`; `hasVector` says whether its vector is valid.
 *
 * @example
 * const record = rowToStored({ row, hasVector: true });
 */
export function rowToStored(options: { row: LanceRow; hasVector: boolean }): StoredRecord {
  const { row } = options;
  return { id: String(row.id), content: text(row.content), metadata: rowMetadata({ row }), uri: text(row.uri), hasVector: options.hasVector };
}

/**
 * A search row (with LanceDB's cosine `_distance`) as a hit: `score = 1 - distance`.
 *
 * @example
 * rowToHit({ row: { id: 'a', _distance: 0.25, content: '', uri: '', metadata_json: '{}' } }).score; // 0.75
 */
export function rowToHit(options: { row: LanceRow }): VectorHit {
  const { row } = options;
  return { id: String(row.id), content: text(row.content), metadata: rowMetadata({ row }), uri: text(row.uri), score: 1 - Number(row._distance) };
}

function decodeKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
