import { randomFillSync } from 'node:crypto';

/** Ids formatted per fill of the pool (as Node buffers entropy for 128 `randomUUID`s). */
const IDS_PER_FILL = 128;
const UUID_LENGTH = 36;
const HEX = Buffer.from('0123456789abcdef', 'latin1');

const random = Buffer.allocUnsafeSlow(16 * IDS_PER_FILL);
const text = Buffer.allocUnsafeSlow(UUID_LENGTH * IDS_PER_FILL);
let pool = '';
let next = IDS_PER_FILL;

/**
 * A random (version 4) UUID, as `crypto.randomUUID()` makes one and from the
 * same source (122 bits from the system's CSPRNG), at a smaller cost per id:
 * Node builds each of its UUIDs from about twenty concatenated strings (580
 * bytes of heap), a front-door request's largest allocation of its own; here
 * 128 are formatted at once into one string and each id is a slice of it.
 */
export function randomUuid(): string {
  if (next === IDS_PER_FILL) fill();
  const at = next++ * UUID_LENGTH;
  return pool.slice(at, at + UUID_LENGTH);
}

function fill(): void {
  randomFillSync(random);
  let out = 0;
  for (let id = 0; id < IDS_PER_FILL; id++) {
    const base = id * 16;
    random[base + 6] = (random[base + 6]! & 0x0f) | 0x40; // version 4
    random[base + 8] = (random[base + 8]! & 0x3f) | 0x80; // variant 10 (RFC 9562)
    for (let i = 0; i < 16; i++) {
      if (i === 4 || i === 6 || i === 8 || i === 10) text[out++] = 0x2d; // '-'
      const byte = random[base + i]!;
      text[out++] = HEX[byte >> 4]!;
      text[out++] = HEX[byte & 15]!;
    }
  }
  pool = text.toString('latin1');
  next = 0;
}
