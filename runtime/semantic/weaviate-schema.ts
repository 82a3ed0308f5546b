import type { CollectionName } from './vector-store.js';
import type { WeaviateProperties } from './weaviate-objects.js';

/** The Weaviate class behind each collection (the spec: "class AgentCard with field uri"). */
export const WEAVIATE_CLASSES = { agent_cards: 'AgentCard', documents: 'Document' } as const satisfies Record<CollectionName, string>;

/** One property of the schema, in a shape both `createFromSchema` and `config.addProperty` accept after mapping. */
export interface WeaviatePropertySpec {
  name: keyof WeaviateProperties;
  dataType: 'text' | 'text[]';
  /** `field`: the whole value is one token, so filters match exact strings. */
  tokenization: 'field' | 'word';
  indexFilterable: boolean;
  indexSearchable: boolean;
}

export const WEAVIATE_PROPERTIES: readonly WeaviatePropertySpec[] = [
  { name: 'card_id', dataType: 'text', tokenization: 'field', indexFilterable: true, indexSearchable: false },
  { name: 'uri', dataType: 'text', tokenization: 'field', indexFilterable: true, indexSearchable: false },
  { name: 'content', dataType: 'text', tokenization: 'word', indexFilterable: false, indexSearchable: true },
  { name: 'metadata_json', dataType: 'text', tokenization: 'field', indexFilterable: false, indexSearchable: false },
  { name: 'metadata_tags', dataType: 'text[]', tokenization: 'field', indexFilterable: true, indexSearchable: false },
];

/** Property names to ask for in queries. */
export const WEAVIATE_PROPERTY_NAMES = WEAVIATE_PROPERTIES.map((p) => p.name);

/**
 * The class definition for `createFromSchema`: no vectorizer (we send the
 * vectors), one unnamed HNSW index with cosine distance. The unnamed
 * ("legacy") vector is what GraphQL's `_additional { vector }` returns, which
 * the spec's "card stored without a vector" check reads.
 *
 * @example
 * await client.collections.createFromSchema(weaviateClassSchema({ collection: 'agent_cards' }));
 */
export function weaviateClassSchema(options: { collection: CollectionName }) {
  return {
    class: WEAVIATE_CLASSES[options.collection],
    description: options.collection === 'agent_cards' ? 'Agent cards of the Semantic Layer' : 'Documents of the Semantic Layer',
    vectorizer: 'none',
    vectorIndexType: 'hnsw',
    vectorIndexConfig: { distance: 'cosine' },
    properties: WEAVIATE_PROPERTIES.map((p) => ({
      name: p.name,
      dataType: [p.dataType],
      tokenization: p.tokenization,
      indexFilterable: p.indexFilterable,
      indexSearchable: p.indexSearchable,
    })),
  };
}

/** How an existing class differs from ours, as far as this store cares. */
export interface SchemaGaps {
  /** Our properties the class lacks; they can be added in place. */
  missing: WeaviatePropertySpec[];
  /** Our `field`-tokenized properties the class tokenizes otherwise: exact-match filters on them may misfire. */
  mistokenized: string[];
}

/**
 * Compares an existing class's properties (as `collections.export` lists
 * them) with ours.
 *
 * @example
 * schemaGaps({ properties: [{ name: 'uri', tokenization: 'word' }] });
 * // { missing: [card_id, content, metadata_json, metadata_tags specs], mistokenized: ['uri'] }
 */
export function schemaGaps(options: { properties: readonly { name: string; tokenization?: string }[] }): SchemaGaps {
  const existing = new Map(options.properties.map((p) => [p.name, p]));
  const missing: WeaviatePropertySpec[] = [];
  const mistokenized: string[] = [];
  for (const spec of WEAVIATE_PROPERTIES) {
    const found = existing.get(spec.name);
    if (!found) missing.push(spec);
    else if (spec.tokenization === 'field' && spec.indexFilterable && found.tokenization !== 'field') mistokenized.push(spec.name);
  }
  return { missing, mistokenized };
}
