import { metadataTags } from './metadata-tags.js';
import weaviate, { generateUuid5, type FilterValue } from 'weaviate-client';
import { z } from 'zod';
import { isValidVector, type StoredRecord, type VectorHit, type VectorRecord } from './vector-store.js';

/** The properties every object carries; both classes share them (a type, not an interface, so it fits the client's `Record<string, WeaviateField>`). */
export type WeaviateProperties = {
  /** Our id (`VectorRecord.id`); the Weaviate object id is a UUID derived from it. */
  card_id: string;
  uri: string;
  content: string;
  /** `metadata` as JSON: the source of truth when reading back. */
  metadata_json: string;
  /** `metadata` as `key=value` strings, for exact-match filters. */
  metadata_tags: string[];
};

/**
 * The Weaviate object id for one of our ids: a UUID v5 (the client's
 * `generateUuid5`, same as Python's `generate_uuid5`), so upserts by id replace.
 *
 * @example
 * weaviateUuid({ id: 'weather-agent' }); // always the same UUID for this id
 */
export function weaviateUuid(options: { id: string }): string {
  return generateUuid5(options.id);
}

/**
 * The `where` filter for `SearchOptions.filter`: `metadata_tags` contains all
 * of the pairs; `undefined` when there is nothing to filter on.
 *
 * @example
 * tagFilter({ filter: { lang: 'en' } }); // { operator: 'ContainsAll', target: { property: 'metadata_tags' }, value: ['lang=en'] }
 */
export function tagFilter(options: { filter: Readonly<Record<string, string>> | undefined }): FilterValue | undefined {
  if (!options.filter) return undefined;
  const tags = metadataTags({ metadata: options.filter });
  if (tags.length === 0) return undefined;
  return weaviate.filter.byProperty('metadata_tags').containsAll(tags);
}

/**
 * The object to batch-insert for a record (its vector is assumed valid).
 *
 * @example
 * const object = toWeaviateObject({ record }); // { id: <uuid>, properties: { card_id: record.id, ... }, vectors: [...] }
 */
export function toWeaviateObject(options: { record: VectorRecord }): { id: string; properties: WeaviateProperties; vectors: number[] } {
  const { record } = options;
  return {
    id: weaviateUuid({ id: record.id }),
    properties: {
      card_id: record.id,
      uri: record.uri,
      content: record.content,
      metadata_json: JSON.stringify(record.metadata),
      metadata_tags: metadataTags({ metadata: record.metadata }),
    },
    vectors: [...record.vector],
  };
}

const MetadataSchema = z.record(z.string(), z.string());

/** What a query returns for one object, as far as this store reads it. */
export interface WeaviateObjectLike {
  uuid: string;
  properties: Record<string, unknown>;
  vectors?: Record<string, unknown> | undefined;
  metadata?: { distance?: number | undefined } | undefined;
}

/**
 * Reads an object back as a record. Tolerates objects written by others:
 * no `card_id` → the UUID is the id; no or bad `metadata_json` → the metadata
 * is rebuilt from `metadata_tags`; missing text → empty.
 *
 * @example
 * const record = fromWeaviateObject({ object }); // { id, content, metadata, uri, hasVector }
 */
export function fromWeaviateObject(options: { object: WeaviateObjectLike }): StoredRecord {
  const { object } = options;
  const p = object.properties;
  return {
    id: typeof p.card_id === 'string' && p.card_id !== '' ? p.card_id : object.uuid,
    content: typeof p.content === 'string' ? p.content : '',
    metadata: readMetadata(p),
    uri: typeof p.uri === 'string' ? p.uri : '',
    hasVector: isValidVector(objectVector({ object })),
  };
}

/**
 * A search hit from a `nearVector` result: score = 1 - cosine distance.
 * Throws when Weaviate sent no distance (it always does when asked).
 *
 * @example
 * const hit = hitFromWeaviateObject({ object }); // { id, content, metadata, uri, score }
 */
export function hitFromWeaviateObject(options: { object: WeaviateObjectLike }): VectorHit {
  const distance = options.object.metadata?.distance;
  if (typeof distance !== 'number' || !Number.isFinite(distance)) {
    throw new Error(`Weaviate returned object ${options.object.uuid} without a distance`);
  }
  const { id, content, metadata, uri } = fromWeaviateObject(options);
  return { id, content, metadata, uri, score: 1 - distance };
}

/**
 * The object's single vector: the unnamed one (`default`), else the first
 * named one; `undefined` when there is none or it is not a flat number list.
 */
export function objectVector(options: { object: Pick<WeaviateObjectLike, 'vectors'> }): number[] | undefined {
  const vectors = options.object.vectors;
  if (!vectors) return undefined;
  const vector = vectors.default ?? Object.values(vectors)[0];
  if (!Array.isArray(vector) || !vector.every((x): x is number => typeof x === 'number')) return undefined;
  return vector;
}

function readMetadata(p: Record<string, unknown>): Record<string, string> {
  if (typeof p.metadata_json === 'string') {
    try {
      const parsed = MetadataSchema.safeParse(JSON.parse(p.metadata_json));
      if (parsed.success) return parsed.data;
    } catch {
      // Not JSON: fall back to the tags.
    }
  }
  const metadata: Record<string, string> = {};
  if (Array.isArray(p.metadata_tags)) {
    for (const tag of p.metadata_tags) {
      if (typeof tag !== 'string') continue;
      const at = tag.indexOf('=');
      if (at <= 0) continue;
      metadata[decodeURIComponentSafe(tag.slice(0, at))] = tag.slice(at + 1);
    }
  }
  return metadata;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
