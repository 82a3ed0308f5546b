/**
 * Metadata as `key=value` tags, the form both vector stores filter on. `%`
 * and `=` in keys are escaped, so `{ 'a=b': 'c' }` and `{ a: 'b=c' }` never
 * give the same tag.
 *
 * @example
 * metadataTags({ metadata: { source: 'a.md', lang: 'en' } }); // ['source=a.md', 'lang=en']
 */
export function metadataTags(options: { metadata: Readonly<Record<string, string>> }): string[] {
  return Object.entries(options.metadata).map(([key, value]) => `${key.replace(/%/g, '%25').replace(/=/g, '%3D')}=${value}`);
}
