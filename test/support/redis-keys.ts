import type { Redis } from 'ioredis';

/** Every key under `prefix`, found with SCAN (never KEYS). */
export async function scanKeys(client: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

/** Deletes every key under `prefix`. */
export async function deleteKeys(client: Redis, prefix: string): Promise<void> {
  const keys = await scanKeys(client, prefix);
  if (keys.length > 0) await client.del(...keys);
}
