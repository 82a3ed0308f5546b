import { metadataTags } from './metadata-tags.js';
/**
 * A SQL string literal for LanceDB's (DataFusion) SQL: single quotes, with
 * every `'` doubled. Backslashes are not escapes in this dialect, so nothing
 * inside the value can end the literal.
 *
 * @example
 * sqlString({ value: "O'Brien" }); // "'O''Brien'"
 */
export function sqlString(options: { value: string }): string {
  return `'${options.value.replace(/'/g, "''")}'`;
}

/**
 * The `where` predicate for `SearchOptions.filter`: `metadata_tags` holds
 * every pair (`array_has` ANDed); `undefined` when there is nothing to filter on.
 *
 * @example
 * tagWhere({ filter: { lang: 'en', kind: 'faq' } });
 * // "array_has(metadata_tags, 'lang=en') AND array_has(metadata_tags, 'kind=faq')"
 */
export function tagWhere(options: { filter: Readonly<Record<string, string>> | undefined }): string | undefined {
  if (!options.filter) return undefined;
  const tags = metadataTags({ metadata: options.filter });
  if (tags.length === 0) return undefined;
  return tags.map((tag) => `array_has(metadata_tags, ${sqlString({ value: tag })})`).join(' AND ');
}

/**
 * The `where` predicate selecting records by id.
 *
 * @example
 * idWhere({ ids: ['a', "b'c"] }); // "id IN ('a', 'b''c')"
 */
export function idWhere(options: { ids: readonly string[] }): string {
  return `id IN (${options.ids.map((value) => sqlString({ value })).join(', ')})`;
}
