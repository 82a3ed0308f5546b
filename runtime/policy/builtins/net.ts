/**
 * Network builtins: net.cidr_contains, net.cidr_intersects,
 * net.cidr_is_valid, net.cidr_expand, net.cidr_contains_matches and
 * net.cidr_merge, for IPv4 and IPv6, with OPA's results and error texts
 * (address semantics in net-ip.ts). net.lookup_ip_addr (DNS) is not
 * implemented.
 */
import { RegoObject, RegoSet, type Value } from '../value.js';
import {
  cidrMask,
  contains,
  fromBig,
  incIP,
  ipString,
  lastIP,
  maskIP,
  netString,
  networkNumberAndMask,
  parseCIDR,
  parseIP,
  simpleMaskLength,
  to4,
  toBig,
  type IP,
  type IPNet,
} from './net-ip.js';
import { asString, BuiltinError, type BuiltinDefinition } from './registry.js';

/** Largest number of addresses net.cidr_expand produces (OPA has no limit but times out). */
const MAX_EXPAND_BITS = 20;

// ---------------------------------------------------------------------------
// Builtins

/** A CIDR operand; OPA reports every operand of these builtins as operand 1. */
function netOperand(v: Value | undefined): IPNet {
  const s = asString(v, 1);
  const parsed = parseCIDR(s);
  if (parsed === null) throw new BuiltinError(`invalid CIDR address: ${s}`);
  return parsed.net;
}

function cidrContains(a: Value | undefined, b: Value | undefined): boolean {
  const net = netOperand(a);
  const s = asString(b, 1);
  const ip = parseIP(s);
  if (ip !== null) return contains(net, ip);
  const other = parseCIDR(s);
  if (other === null) throw new BuiltinError(`not a valid textual representation of an IP address or CIDR: ${s}`);
  // A contains B when it contains B's first and last addresses.
  return contains(net, other.net.ip) && contains(net, lastIP(other.net));
}

/** The (cidr, key) pairs of a net.cidr_contains_matches operand. */
function* matchEntries(operand: number, v: Value): Generator<[Value, Value]> {
  const cidrOf = (x: Value): Value => {
    if (typeof x === 'string') return x;
    if (Array.isArray(x) && x.length > 0) return x[0] as Value;
    throw new BuiltinError(`operand ${operand}: element must be string or non-empty array`);
  };
  if (typeof v === 'string') {
    yield [v, v];
  } else if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) yield [cidrOf(v[i] as Value), i];
  } else if (v instanceof RegoSet) {
    for (const x of v) yield [cidrOf(x), x];
  } else if (v instanceof RegoObject) {
    for (const [k, x] of v.entries()) yield [cidrOf(x), k];
  }
}

const V4_BASE = 0xffffn << 32n;

interface AddressRange {
  first: bigint;
  last: bigint;
  /** The network the range came from, or null once ranges were merged. */
  net: IPNet | null;
}

/** A net.cidr_merge element: a CIDR, or an IPv4 address with its classful default mask. */
function mergeNetwork(x: Value): IPNet {
  if (typeof x !== 'string') throw new BuiltinError('element must be string');
  const ip = parseIP(x);
  if (ip === null) {
    const parsed = parseCIDR(x);
    if (parsed === null) throw new BuiltinError(`invalid CIDR address: ${x}`);
    return parsed.net;
  }
  const v4 = to4(ip);
  if (v4 === null) throw new BuiltinError('IPv6 invalid: needs prefix length');
  const first = v4[0] as number;
  return { ip, mask: cidrMask(first < 0x80 ? 8 : first < 0xc0 ? 16 : 24, 32) };
}

/** The network's addresses in one 128-bit space (IPv4 as ::ffff:a.b.c.d). */
function addressRange(n: IPNet): AddressRange {
  const nm = networkNumberAndMask(n) as [IP, IP];
  const [nn, m] = nm;
  const base = nn.length === 4 ? V4_BASE : 0n;
  const first = base + toBig(maskIP(nn, m) as IP);
  const host = (1n << BigInt(m.length * 8 - Math.max(0, simpleMaskLength(m)))) - 1n;
  return { first, last: first | host, net: n };
}

/** The fewest CIDR blocks covering [lo, hi] in a space of `bits` bits: [start, prefix length]. */
function coverRange(lo: bigint, hi: bigint, bits: number): Array<[bigint, number]> {
  const out: Array<[bigint, number]> = [];
  let x = lo;
  while (x <= hi) {
    let size = 0;
    while (size < bits && ((x >> BigInt(size)) & 1n) === 0n) size++;
    while (size > 0 && x + (1n << BigInt(size)) - 1n > hi) size--;
    out.push([x, bits - size]);
    x += 1n << BigInt(size);
  }
  return out;
}

function mergedStrings(r: AddressRange): string[] {
  if (r.net !== null) return [netString(r.net)];
  const v4 = r.first >= V4_BASE && r.first <= V4_BASE + 0xffffffffn && r.last <= V4_BASE + 0xffffffffn;
  if (v4) {
    return coverRange(r.first - V4_BASE, r.last - V4_BASE, 32).map(([ip, ones]) => netString({ ip: fromBig(ip, 4), mask: cidrMask(ones, 32) }));
  }
  return coverRange(r.first, r.last, 128).map(([ip, ones]) => netString({ ip: fromBig(ip, 16), mask: cidrMask(ones, 128) }));
}

/** Sorts ranges by last then first address and merges overlapping or adjacent ones. */
function mergeRanges(networks: IPNet[]): AddressRange[] {
  const ranges = networks.map(addressRange);
  ranges.sort((a, b) => (a.last !== b.last ? (a.last < b.last ? -1 : 1) : a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  for (let i = ranges.length - 1; i > 0; i--) {
    const cur = ranges[i] as AddressRange;
    const prev = ranges[i - 1] as AddressRange;
    // The address before cur.first (the lowest IPv4 and IPv6 addresses have none).
    const before = cur.first === 0n || cur.first === V4_BASE ? cur.first : cur.first - 1n;
    if (before <= prev.last) {
      ranges[i - 1] = { first: prev.first < cur.first ? prev.first : cur.first, last: cur.last, net: null };
      ranges.splice(i, 1);
    }
  }
  return ranges;
}

export const netBuiltins: BuiltinDefinition[] = [
  {
    name: 'net.cidr_contains',
    args: ['string', 'string'],
    result: 'boolean',
    impl: ([a, b]) => cidrContains(a, b),
  },
  {
    name: 'net.cidr_intersects',
    args: ['string', 'string'],
    result: 'boolean',
    impl: ([a, b]) => {
      const x = netOperand(a);
      const y = netOperand(b);
      return contains(x, y.ip) || contains(y, x.ip);
    },
  },
  {
    name: 'net.cidr_is_valid',
    args: ['string'],
    result: 'boolean',
    impl: ([x]) => typeof x === 'string' && parseCIDR(x) !== null,
  },
  {
    name: 'net.cidr_expand',
    args: ['string'],
    result: 'set',
    impl: ([x]) => {
      const s = asString(x, 1);
      const parsed = parseCIDR(s);
      if (parsed === null) throw new BuiltinError(`invalid CIDR address: ${s}`);
      const { net } = parsed;
      const hostBits = net.mask.length * 8 - simpleMaskLength(net.mask);
      if (hostBits > MAX_EXPAND_BITS) {
        throw new BuiltinError(`${s} has too many addresses to expand (more than 2^${MAX_EXPAND_BITS})`);
      }
      const out = new RegoSet();
      const ip = maskIP(parsed.ip, net.mask) as IP;
      for (let n = 0; contains(net, ip) && n <= 1 << MAX_EXPAND_BITS; n++) {
        out.add(ipString(ip));
        incIP(ip);
      }
      return out;
    },
  },
  {
    name: 'net.cidr_contains_matches',
    args: ['any', 'any'],
    result: 'set',
    impl: ([a, b]) => {
      const out = new RegoSet();
      for (const [cidr, i] of matchEntries(1, a as Value)) {
        for (const [other, j] of matchEntries(2, b as Value)) {
          if (cidrContains(cidr, other)) out.add([i, j]);
        }
      }
      return out;
    },
  },
  {
    name: 'net.cidr_merge',
    args: ['any'],
    result: 'set',
    impl: ([x]) => {
      let elements: readonly Value[];
      if (Array.isArray(x)) elements = x;
      else if (x instanceof RegoSet) elements = x.values();
      else throw new BuiltinError('operand must be an array');
      const out = new RegoSet();
      if (elements.length === 0) return out;
      for (const r of mergeRanges(elements.map(mergeNetwork))) for (const s of mergedStrings(r)) out.add(s);
      return out;
    },
  },
];
