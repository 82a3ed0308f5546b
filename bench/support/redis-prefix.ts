import { Redis } from 'ioredis';

/** Deletes every key under `prefix` on the Redis at `url` (SCAN and UNLINK, never KEYS): what a bench wrote. */
export async function deletePrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
