/**
 * UUID builtins: uuid.rfc4122 (a random version 4 UUID, the same for the
 * same key within one query) and uuid.parse (the fields of a UUID, undefined
 * when the string is not one).
 */
import { randomBytes } from 'node:crypto';
import { bigNum, canonicalKey, RegoObject, type Value } from '../value.js';
import { asString, type BuiltinDefinition } from './registry.js';

const CACHE_PREFIX = 'uuid.rfc4122:';

/** A random RFC 4122 version 4 UUID in lower-case canonical form. */
function randomUuid(): string {
  const b = randomBytes(16);
  b[6] = ((b[6] as number) & 0x0f) | 0x40;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function hexByte(bytes: Buffer, i: number): number | null {
  const s = bytes.subarray(i, i + 2).toString('latin1');
  return /^[0-9a-fA-F]{2}$/.test(s) ? parseInt(s, 16) : null;
}

/** The 16 bytes of a UUID in any form Go's google/uuid accepts, or null. */
function parseUuidBytes(text: string): Buffer | null {
  let s = Buffer.from(text, 'utf8');
  const out = Buffer.alloc(16);
  switch (s.length) {
    case 36:
      break;
    case 45: // urn:uuid:xxxxxxxx-...
      if (s.subarray(0, 9).toString('latin1').toLowerCase() !== 'urn:uuid:') return null;
      s = s.subarray(9);
      break;
    case 38: // {xxxxxxxx-...}; as in Go, the enclosing characters are not checked
      s = s.subarray(1);
      break;
    case 32: // no hyphens
      for (let i = 0; i < 16; i++) {
        const v = hexByte(s, i * 2);
        if (v === null) return null;
        out[i] = v;
      }
      return out;
    default:
      return null;
  }
  // 45: 0x2d, '-'
  if (s[8] !== 0x2d || s[13] !== 0x2d || s[18] !== 0x2d || s[23] !== 0x2d) return null;
  const offsets = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
  for (let i = 0; i < 16; i++) {
    const v = hexByte(s, offsets[i] as number);
    if (v === null) return null;
    out[i] = v;
  }
  return out;
}

function variantName(b8: number): string {
  if ((b8 & 0xc0) === 0x80) return 'RFC4122';
  if ((b8 & 0xe0) === 0xc0) return 'Microsoft';
  if ((b8 & 0xe0) === 0xe0) return 'Future';
  return 'Reserved';
}

/** Local/global and unicast/multicast bits of the first node byte. */
function macVariables(b: number): string {
  if ((b & 0b11) === 0b11) return 'local:multicast';
  if ((b & 0b01) === 0b01) return 'global:multicast';
  if ((b & 0b10) === 0b10) return 'local:unicast';
  return 'global:unicast';
}

const DOMAINS = ['Person', 'Group', 'Org'];
/** 100-ns intervals between 1582-10-15 (the UUID epoch) and 1970-01-01. */
const UUID_EPOCH_OFFSET = 122_192_928_000_000_000n;

/** Unix nanoseconds of a version 1 or 2 UUID's timestamp (as Go computes it, truncating toward zero). */
function uuidTimeNs(u: Buffer): bigint {
  const low = BigInt(u.readUInt32BE(0));
  const mid = BigInt(u.readUInt16BE(4));
  const high = BigInt(u.readUInt16BE(6) & 0x0fff);
  const ticks = low | (mid << 32n) | (high << 48n);
  const since = ticks - UUID_EPOCH_OFFSET;
  const secs = since / 10_000_000n;
  const nsec = (since % 10_000_000n) * 100n;
  return secs * 1_000_000_000n + nsec;
}

function describeUuid(u: Buffer): RegoObject {
  const version = (u[6] as number) >> 4;
  const o = new RegoObject();
  o.set('version', version);
  o.set('variant', variantName(u[8] as number));
  if (version === 1 || version === 2) {
    o.set('time', bigNum(uuidTimeNs(u)));
    const node = u.subarray(10, 16);
    o.set('nodeid', [...node].map((b) => b.toString(16).padStart(2, '0')).join('-'));
    o.set('macvariables', macVariables(node[0] as number));
    o.set('clocksequence', u.readUInt16BE(8) & 0x3fff);
    if (version === 2) {
      o.set('id', u.readUInt32BE(0));
      const domain = u[9] as number;
      o.set('domain', DOMAINS[domain] ?? `Domain${domain}`);
    }
  }
  return o;
}

export const uuidBuiltins: BuiltinDefinition[] = [
  {
    name: 'uuid.rfc4122',
    args: ['string'],
    result: 'string',
    nondeterministic: true,
    impl: ([key], ctx) => {
      // OPA keys its per-query cache by the value's hash, whatever its type.
      const cacheKey = CACHE_PREFIX + canonicalKey(key as Value);
      const cached = ctx.cache.get(cacheKey);
      if (typeof cached === 'string') return cached;
      const id = randomUuid();
      ctx.cache.set(cacheKey, id);
      return id;
    },
  },
  {
    name: 'uuid.parse',
    args: ['string'],
    result: 'object',
    impl: ([s]) => {
      const bytes = parseUuidBytes(asString(s, 1));
      return bytes === null ? undefined : describeUuid(bytes);
    },
  },
];
