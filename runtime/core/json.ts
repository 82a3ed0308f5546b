/** JSON values as they cross the wire. */
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** True for a plain object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The value of the JSON `text`, or undefined when it is not JSON; for input
 * that a schema checks next, so bad JSON and a bad shape fail the same way.
 *
 * @example
 * SomeSchema.safeParse(parseJsonOrUndefined(await response.text()));
 */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
