import { isPlainObject } from './json.js';

/** Field-name endings (lower case, without `-`/`_`) that hold secrets. */
const SECRET_ENDINGS = [
  'secret',
  'password',
  'passwd',
  'privatekey',
  'apikey',
  'accesstoken',
  'authtoken',
  'bearertoken',
  'hmackey',
  'signingkey',
  'credentials',
];
/** Whole fields that carry authentication material; dropped when a document is published. */
const AUTH_FIELDS = new Set(['auth', 'authentication', 'authorization', 'credentials', 'token', 'key', 'keys']);

/** True when a field name says it holds a secret (`api_key`, `clientSecret`, `hmac-key`, ...). */
export function isSecretName(key: string): boolean {
  const normalized = key.toLowerCase().replace(/[-_]/g, '');
  return SECRET_ENDINGS.some((ending) => normalized.endsWith(ending));
}

/** The dotted path of the first secret-looking field in `value`, if any. */
export function findSecretField(value: unknown, prefix = ''): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isSecretName(key)) return path;
    const nested = findSecretField(inner, path);
    if (nested !== undefined) return nested;
  }
  return undefined;
}

/**
 * A copy of `value` without secret-looking fields and without authentication
 * fields (`auth`, `authentication`, `credentials`, `token`, `key`, ...), at
 * any depth: what may be served or indexed.
 */
export function stripSecrets<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => stripSecrets(item)) as T;
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (isSecretName(key) || AUTH_FIELDS.has(key.toLowerCase().replace(/[-_]/g, ''))) continue;
    out[key] = stripSecrets(inner);
  }
  return out as T;
}
