/**
 * IP addresses and networks with the semantics of Go's `net` package as OPA
 * uses it: an IP is 4 or 16 bytes (IPv4 parsed from text is 16 bytes,
 * IPv4-mapped), a network is an address plus a 4- or 16-byte mask, parsing
 * is `netip.ParseAddr`'s with its reasons for refusing a text (no leading
 * zeros in IPv4 fields; a zone only where `uri.parse` reads a bracketed host,
 * never in `net.*`), and addresses print as `net.IP.String` does
 * (IPv4-mapped addresses in dotted form, RFC 5952 IPv6).
 */
import { BuiltinError } from './registry.js';

export type IP = Uint8Array;

export interface IPNet {
  ip: IP;
  mask: IP;
}

// ---------------------------------------------------------------------------
// Parsing (netip.ParseAddr, net.ParseIP, net.ParseCIDR)

/**
 * Why netip.ParseAddr refused a text: Go's reason, and the rest of the text
 * where it stopped when Go names it (`ParseAddr("::g"): each colon-separated
 * field must have at least one digit (at "g")`).
 */
export interface AddrError {
  msg: string;
  at: string;
}

/** netip.ParseAddr's answer: the 16-byte form, whether the text was dotted IPv4, and the zone (`%en0`); or why not. */
export type ParsedAddr = { ip: IP; is4: boolean; zone: string } | { error: AddrError };

const refused = (msg: string, at = ''): AddrError => ({ msg, at });

function parseIPv4Fields(s: string): number[] | AddrError {
  const fields: number[] = [];
  let val = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digits === 1 && val === 0) return refused('IPv4 field has octet with leading zero');
      val = val * 10 + (c - 48);
      digits++;
      if (val > 255) return refused('IPv4 field has value >255');
    } else if (c === 46) {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') return refused('IPv4 field must have at least one digit', s.slice(i));
      if (fields.length === 3) return refused('IPv4 address too long');
      fields.push(val);
      val = 0;
      digits = 0;
    } else {
      return refused('unexpected character', s.slice(i));
    }
  }
  if (fields.length < 3) return refused('IPv4 address too short');
  fields.push(val);
  return fields;
}

function hexDigit(c: string | undefined): number {
  if (c === undefined) return -1;
  const v = parseInt(c, 16);
  return Number.isNaN(v) ? -1 : v;
}

function parseIPv6(s: string): { ip: IP; zone: string } | AddrError {
  const percent = s.indexOf('%');
  const zone = percent < 0 ? '' : s.slice(percent + 1);
  if (percent >= 0 && zone === '') return refused('zone must be a non-empty string');
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  let rest = percent < 0 ? s : s.slice(0, percent);
  if (rest.startsWith('::')) {
    ellipsis = 0;
    rest = rest.slice(2);
    if (rest === '') return { ip, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < rest.length; off++) {
      const h = hexDigit(rest[off]);
      if (h < 0) break;
      if (off > 3) return refused('each group must have 4 or less digits', rest);
      acc = acc * 16 + h;
    }
    if (off === 0) return refused('each colon-separated field must have at least one digit', rest);
    if (rest[off] === '.') {
      // Trailing embedded IPv4 address.
      if (ellipsis < 0 && i !== 12) return refused('embedded IPv4 address must replace the final 2 fields of the address', rest);
      if (i + 4 > 16) return refused('too many hex fields to fit an embedded IPv4 at the end of the address', rest);
      const v4 = parseIPv4Fields(rest);
      if (!Array.isArray(v4)) return v4;
      ip.set(v4, i);
      i += 4;
      rest = '';
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    rest = rest.slice(off);
    if (rest === '') break;
    if (rest[0] !== ':') return refused('unexpected character, want colon', rest);
    if (rest.length === 1) return refused('colon must be followed by more characters', rest);
    rest = rest.slice(1);
    if (rest[0] === ':') {
      if (ellipsis >= 0) return refused('multiple :: in address', rest);
      ellipsis = i;
      rest = rest.slice(1);
      if (rest === '') break;
    }
  }
  if (rest !== '') return refused('trailing garbage after address', rest);
  if (i < 16) {
    if (ellipsis < 0) return refused('address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j] as number;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) {
    return refused('the :: must expand to at least one field of zeros');
  }
  return { ip, zone };
}

const V4_IN_V6 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

function v4Mapped(fields: number[]): IP {
  return Uint8Array.from([...V4_IN_V6, ...fields]);
}

/** netip.ParseAddr: the first `.`, `:` or `%` decides IPv4, IPv6 or a zone without an address. */
export function parseAddr(s: string): ParsedAddr {
  for (const c of s) {
    if (c === '.') {
      const f = parseIPv4Fields(s);
      return Array.isArray(f) ? { ip: v4Mapped(f), is4: true, zone: '' } : { error: f };
    }
    if (c === ':') {
      const r = parseIPv6(s);
      return 'ip' in r ? { ip: r.ip, is4: false, zone: r.zone } : { error: r };
    }
    if (c === '%') return { error: refused('missing IPv6 address') };
  }
  return { error: refused('unable to parse IP') };
}

/** An address as net.ParseIP and net.ParseCIDR take it: parsed, and without a zone. */
function plainAddr(s: string): { ip: IP; is4: boolean } | null {
  const r = parseAddr(s);
  return 'ip' in r && r.zone === '' ? r : null;
}

/** net.ParseIP: 16 bytes, or null. */
export function parseIP(s: string): IP | null {
  return plainAddr(s)?.ip ?? null;
}

export function cidrMask(ones: number, bits: number): IP {
  const m = new Uint8Array(bits / 8);
  for (let i = 0; i < m.length; i++) {
    const n = Math.min(8, Math.max(0, ones - i * 8));
    m[i] = (0xff00 >> n) & 0xff;
  }
  return m;
}

/** net.ParseCIDR: the address as written (16 bytes) and its network. */
export function parseCIDR(s: string): { ip: IP; net: IPNet } | null {
  const slash = s.indexOf('/');
  if (slash < 0) return null;
  const addr = plainAddr(s.slice(0, slash));
  const prefix = s.slice(slash + 1);
  if (addr === null || !/^\d+$/.test(prefix)) return null;
  const ones = prefix.length > 7 ? Infinity : Number(prefix);
  const bits = addr.is4 ? 32 : 128;
  if (ones > bits) return null;
  const mask = cidrMask(ones, bits);
  return { ip: addr.ip, net: { ip: maskIP(addr.ip, mask) as IP, mask } };
}

// ---------------------------------------------------------------------------
// Go's net.IP / net.IPNet behaviour

function isV4Mapped(ip: IP): boolean {
  return ip.length === 16 && V4_IN_V6.every((b, i) => ip[i] === b);
}

export function to4(ip: IP): IP | null {
  if (ip.length === 4) return ip;
  return isV4Mapped(ip) ? ip.subarray(12) : null;
}

/** IP.Mask: null when the lengths do not fit. */
export function maskIP(ip: IP, mask: IP): IP | null {
  let m = mask;
  let x = ip;
  if (m.length === 16 && x.length === 4 && m.subarray(0, 12).every((b) => b === 0xff)) m = m.subarray(12);
  if (m.length === 4 && isV4Mapped(x)) x = x.subarray(12);
  if (x.length !== m.length) return null;
  return x.map((b, i) => b & (m[i] as number));
}

export function networkNumberAndMask(n: IPNet): [IP, IP] | null {
  let ip = to4(n.ip);
  if (ip === null) {
    ip = n.ip;
    if (ip.length !== 16) return null;
  }
  let m = n.mask;
  if (m.length === 4) {
    if (ip.length !== 4) return null;
  } else if (m.length === 16) {
    if (ip.length === 4) m = m.subarray(12);
  } else {
    return null;
  }
  return [ip, m];
}

export function contains(n: IPNet, addr: IP): boolean {
  const nm = networkNumberAndMask(n);
  if (nm === null) return false;
  const [nn, m] = nm;
  const ip = to4(addr) ?? addr;
  if (ip.length !== nn.length) return false;
  for (let i = 0; i < ip.length; i++) {
    if (((nn[i] as number) & (m[i] as number)) !== ((ip[i] as number) & (m[i] as number))) return false;
  }
  return true;
}

/** Prefix length of a canonical mask, or -1. */
export function simpleMaskLength(mask: IP): number {
  let n = 0;
  for (let i = 0; i < mask.length; i++) {
    let v = mask[i] as number;
    if (v === 0xff) {
      n += 8;
      continue;
    }
    while (v & 0x80) {
      n++;
      v = (v << 1) & 0xff;
    }
    if (v !== 0) return -1;
    for (let j = i + 1; j < mask.length; j++) if (mask[j] !== 0) return -1;
    break;
  }
  return n;
}

function hex(bytes: IP): string {
  return Buffer.from(bytes).toString('hex');
}

function ipv6String(ip: IP): string {
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((ip[i] as number) << 8) | (ip[i + 1] as number));
  // The first longest run of at least two zero groups becomes "::".
  let zeroStart = -1;
  let zeroEnd = -1;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i >= 2 && j - i > zeroEnd - zeroStart) {
      zeroStart = i;
      zeroEnd = j;
    }
  }
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (i === zeroStart) {
      out += '::';
      i = zeroEnd - 1;
      continue;
    }
    if (i > 0 && !out.endsWith(':')) out += ':';
    out += (groups[i] as number).toString(16);
  }
  return out;
}

/** IP.String: dotted IPv4 for 4-byte and IPv4-mapped addresses, RFC 5952 IPv6 otherwise. */
export function ipString(ip: IP): string {
  if (ip.length === 0) return '<nil>';
  if (ip.length !== 4 && ip.length !== 16) return '?' + hex(ip);
  const v4 = to4(ip);
  if (v4 !== null) return [...v4].join('.');
  return ipv6String(ip);
}

export function netString(n: IPNet): string {
  const nm = networkNumberAndMask(n);
  if (nm === null) return '<nil>';
  const [nn, m] = nm;
  const l = simpleMaskLength(m);
  return ipString(nn) + '/' + (l === -1 ? hex(m) : String(l));
}

export function toBig(ip: IP): bigint {
  let x = 0n;
  for (const b of ip) x = (x << 8n) | BigInt(b);
  return x;
}

export function fromBig(x: bigint, len: number): IP {
  const out = new Uint8Array(len);
  for (let i = len - 1; i >= 0; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

/** The last address of a network (for containment of a whole CIDR). */
export function lastIP(n: IPNet): IP {
  const ones = simpleMaskLength(n.mask);
  if (ones === -1) throw new BuiltinError('CIDR mask is in non-standard format');
  const bits = n.mask.length * 8;
  if (ones === bits) return n.ip;
  const host = (1n << BigInt(bits - ones)) - 1n;
  return fromBig(toBig(n.ip) | host, bits / 8);
}

export function incIP(ip: IP): void {
  for (let j = ip.length - 1; j >= 0; j--) {
    ip[j] = ((ip[j] as number) + 1) & 0xff;
    if (ip[j] !== 0) break;
  }
}
