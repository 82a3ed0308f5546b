/** Distinct routes kept as labels; requests past them count under "other", so random paths cannot grow /metrics without bound. */
const MAX_ROUTES = 64;
/** Request targets whose label is remembered: a service's few hot paths are labelled without splitting them again. */
const MAX_CACHED_URLS = 256;

const known = new Set<string>();
/** Label of a request target (path and query) already worked out; bounded, and filled only while there is room. */
const byUrl = new Map<string, string>();

/**
 * The `route` label of a request path, bounded: segments that look like
 * identifiers (all digits, a run of three digits, longer than 24 characters,
 * or characters beyond letters, digits and `_.:-`) become `{id}`, an unanswered path is "unmatched", and past
 * `MAX_ROUTES` distinct routes the rest are "other".
 */
export function routeLabel(url: string | undefined, status: number): string {
  if (status === 404) return 'unmatched';
  const target = url ?? '/';
  const cached = byUrl.get(target);
  if (cached !== undefined) return cached;
  const label = labelOf(target);
  // A label once given never changes (`known` only grows), so remembering it is safe.
  if (byUrl.size < MAX_CACHED_URLS) byUrl.set(target, label);
  return label;
}

function labelOf(target: string): string {
  const path = target.split('?', 1)[0] as string;
  const route = path
    .split('/')
    .map((segment) => (segment === '' || !looksLikeId(segment) ? segment : '{id}'))
    .join('/');
  if (known.has(route)) return route;
  if (known.size >= MAX_ROUTES) return 'other';
  known.add(route);
  return route;
}

function looksLikeId(segment: string): boolean {
  return segment.length > 24 || /^\d+$/.test(segment) || /\d{3}/.test(segment) || !/^[\w.:-]+$/.test(segment);
}
