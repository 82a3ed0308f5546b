/**
 * Context values are stored as JSON, one field per top-level key, by both
 * backends, so they behave alike: what you read back is the JSON form of what
 * you wrote (a `Date` comes back as a string) and is always a fresh copy.
 */

/** A patch split into JSON-encoded fields to set and keys to remove. */
export interface EncodedPatch {
  set: Array<[key: string, json: string]>;
  remove: string[];
}

/**
 * Encodes a context patch. A key whose value is `undefined` (or has no JSON
 * form, such as a function) is removed. Throws a `TypeError` for values JSON
 * cannot encode (a `BigInt`, a cycle), before anything is stored.
 */
export function encodePatch(patch: Readonly<Record<string, unknown>>): EncodedPatch {
  const encoded: EncodedPatch = { set: [], remove: [] };
  for (const [key, value] of Object.entries(patch)) {
    const json = value === undefined ? undefined : (JSON.stringify(value) as string | undefined);
    if (json === undefined) encoded.remove.push(key);
    else encoded.set.push([key, json]);
  }
  return encoded;
}

/** Decodes stored fields into a context object; a field that is not valid JSON is left out. */
export function decodeFields(fields: Iterable<readonly [string, string]>): Record<string, unknown> {
  const entries: Array<[string, unknown]> = [];
  for (const [key, json] of fields) {
    try {
      entries.push([key, JSON.parse(json) as unknown]);
    } catch {
      // A corrupt field reads as absent; the next update of the key overwrites it.
    }
  }
  // fromEntries defines own properties, so a `__proto__` key stays a plain key.
  return Object.fromEntries(entries);
}
