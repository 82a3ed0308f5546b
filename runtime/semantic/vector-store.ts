/** The two collections the Semantic Layer keeps. */
export type CollectionName = 'documents' | 'agent_cards';

/**
 * One stored item: a document or an agent card, with its embedding.
 * `metadata` maps string keys to string values (the spec's document shape).
 */
export interface VectorRecord {
  /** Stable id: documents get a random UUID, cards one derived from their name. */
  id: string;
  vector: readonly number[];
  content: string;
  metadata: Readonly<Record<string, string>>;
  /** For cards: the file the card came from (`file://...`); empty for documents. */
  uri: string;
}

/** A search hit: the record without its vector, and a cosine similarity in [-1, 1] (1 = same direction). */
export interface VectorHit {
  id: string;
  content: string;
  metadata: Readonly<Record<string, string>>;
  uri: string;
  score: number;
}

/** A stored record as listed: whether it holds a valid vector (older stores kept cards without one). */
export interface StoredRecord {
  id: string;
  content: string;
  metadata: Readonly<Record<string, string>>;
  uri: string;
  hasVector: boolean;
}

export interface SearchOptions {
  limit: number;
  /** Only records whose metadata has every one of these key/value pairs. */
  filter?: Readonly<Record<string, string>>;
}

/**
 * Where vectors live. Two implementations: LanceDB (embedded, default) and
 * Weaviate (a server, at VECTOR_STORE_URL). Implementations refuse a record
 * whose vector is empty, of the wrong dimension, or not finite: nothing is
 * ever stored without a valid vector.
 */
export interface VectorStore {
  /** `lancedb` or `weaviate`, for messages and health. */
  readonly kind: string;
  /** Where the store is (a directory or a URL), for messages. */
  readonly location: string;
  /** Dimension of the vectors; fixed by the first record written (or by the existing data). */
  readonly dimensions: number | undefined;
  /** Inserts or replaces records by id. */
  upsert(collection: CollectionName, records: readonly VectorRecord[]): Promise<void>;
  /** The `limit` nearest records by cosine similarity, best first. */
  search(collection: CollectionName, vector: readonly number[], options: SearchOptions): Promise<VectorHit[]>;
  get(collection: CollectionName, id: string): Promise<StoredRecord | undefined>;
  /** Every record of a collection (meant for cards: hundreds, not millions). */
  list(collection: CollectionName): Promise<StoredRecord[]>;
  delete(collection: CollectionName, ids: readonly string[]): Promise<void>;
  count(collection: CollectionName): Promise<number>;
  /** Answers whether the store can be used right now. */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

/** True when `vector` is non-empty, finite and not all zeros. */
export function isValidVector(vector: readonly number[] | undefined, dimensions?: number): boolean {
  if (!vector || vector.length === 0) return false;
  if (dimensions !== undefined && vector.length !== dimensions) return false;
  let norm = 0;
  for (const x of vector) {
    if (!Number.isFinite(x)) return false;
    norm += x * x;
  }
  return norm > 0;
}
