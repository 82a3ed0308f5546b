/**
 * Decodes one percent-encoded path segment, or returns undefined when its
 * encoding is malformed (`%E0%A4%A`), where `decodeURIComponent` throws a
 * URIError that would otherwise surface as a 500.
 *
 * @example
 * decodePathSegment('a%20b'); // 'a b'
 * decodePathSegment('%E0'); // undefined
 */
export function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** The message for a path whose percent-encoding is malformed. */
export function malformedPathMessage(path: string): string {
  return `The path ${path} has a malformed percent-encoding (such as a lone or truncated %XX); encode each byte of its segments as %XX.`;
}
