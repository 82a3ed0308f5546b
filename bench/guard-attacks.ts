/**
 * The guard's attack classes alone (issue 33), without the rest of
 * `npm run security`: for working on one class.
 *
 *   npm run build && node dist/bench/guard-attacks.js [class ...]
 *
 * Uses the Redis at REDIS_URL (default redis://127.0.0.1:6379). Exits 1 when
 * an attack got through.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GUARD_ATTACKS } from './support/guard-attacks/index.js';

const only = process.argv.slice(2);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let breaches = 0;
for (const attack of GUARD_ATTACKS.filter((candidate) => only.length === 0 || only.includes(candidate.name))) {
  const scratch = await mkdtemp(join(tmpdir(), `fw-guard-${attack.name}-`));
  try {
    const result = await attack.run({ scratch, redisUrl });
    console.log(`${attack.name.padEnd(22)} tried ${String(result.tried).padStart(4)}  held ${String(result.held).padStart(4)}`);
    for (const breach of result.breaches) console.log(`    BREACH: ${breach}`);
    breaches += result.breaches.length;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
process.exit(breaches === 0 ? 0 : 1);
