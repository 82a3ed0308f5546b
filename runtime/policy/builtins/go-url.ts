/**
 * Go's `net/url.Parse` as OPA v1.20.2 runs it (built with Go 1.26, whose
 * default `urlstrictcolons=1` refuses a second colon in an http(s) host):
 * the parts of a URL that `uri.parse` reports, or Go's error text
 * (`parse "http://x:abc": invalid port ":abc" after host`).
 *
 * Go works on bytes, so the text is read as a byte string (its UTF-8, one
 * char per byte): indexes, %-decoding (`%ff` is one byte) and an escape
 * quoted in an error (`"%a\xe6"`, a cut character) are Go's. Parts go back to
 * text at the end, an invalid byte as U+FFFD, as OPA's JSON prints them.
 */
import { goQuoteBytes, goString } from './encoding.js';
import { goBytes } from '../go-bytes.js';
import { parseAddr } from './net-ip.js';

/** The fields of Go's `url.URL` that OPA reads, plus its `Hostname()` and `Port()`. */
export interface GoURL {
  /** Lower-cased. */
  scheme: string;
  hostname: string;
  port: string;
  /** Decoded. */
  path: string;
  /** The path as written, only when Go's own escaping of `path` would write it otherwise (`/a%2fb`). */
  rawPath: string;
  /** After the first `?`, as written. */
  rawQuery: string;
  /** Decoded. */
  fragment: string;
}

export type GoURLResult = { url: GoURL } | { error: string };

/** A refusal inside the parse; `goParseURL` adds Go's `parse "<url>": ` lead. */
class Refusal extends Error {}

// ASCII is its own UTF-8: only a text with other characters goes through a Buffer.
const NOT_ASCII = /[^\x00-\x7f]/;
const toBytes = (s: string): string => (NOT_ASCII.test(s) ? goBytes(s).toString('latin1') : s);
const toText = (b: string): string => (NOT_ASCII.test(b) ? goString(Buffer.from(b, 'latin1')) : b);
const quote = (b: string): string => goQuoteBytes(Buffer.from(b, 'latin1'));

const isAlnum = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

// What Go's shouldEscape leaves alone besides letters and digits, in the two modes Parse asks it about.
const PATH_KEEPS = new Set([...'-_.~$&+,/:;=@'].map((c) => c.charCodeAt(0)));
const HOST_KEEPS = new Set([...'-_.~!$&\'()*+,;=:[]<>"'].map((c) => c.charCodeAt(0)));
const USERINFO_KEEPS = new Set([..."-._:~!$&'()*+,;=%@"].map((c) => c.charCodeAt(0)));

const keptInHost = (c: number): boolean => isAlnum(c) || HOST_KEEPS.has(c);

/**
 * Go's `unescape`: every `%` takes two hex digits (`invalid URL escape "%zz"`).
 * A host may %-encode only non-ASCII bytes (and `%25`) and holds only the
 * characters a host keeps (`invalid character " " in host name`); a zone may
 * encode what a host may hold, a space too.
 */
function unescape(s: string, mode: 'host' | 'zone' | 'other'): string {
  const hostLike = mode !== 'other';
  let out = '';
  let copied = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      if (i + 2 >= s.length || !isHex(s.charCodeAt(i + 1)) || !isHex(s.charCodeAt(i + 2))) {
        throw new Refusal(`invalid URL escape ${quote(s.slice(i, i + 3))}`);
      }
      const escape = s.slice(i, i + 3);
      const v = parseInt(s.slice(i + 1, i + 3), 16);
      if (mode === 'host' && v < 0x80 && escape !== '%25') throw new Refusal(`invalid URL escape ${quote(escape)}`);
      if (mode === 'zone' && escape !== '%25' && v !== 0x20 && !keptInHost(v)) throw new Refusal(`invalid URL escape ${quote(escape)}`);
      out += s.slice(copied, i) + String.fromCharCode(v);
      i += 2;
      copied = i + 1;
    } else if (hostLike && c < 0x80 && !keptInHost(c)) {
      throw new Refusal(`invalid character ${quote(s[i] as string)} in host name`);
    }
  }
  return copied === 0 ? s : out + s.slice(copied);
}

/** Whether Go's `escape(path, encodePath)` of a decoded path writes `written`: then Go keeps no RawPath. */
function escapesTo(path: string, written: string): boolean {
  let j = 0;
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (isAlnum(c) || PATH_KEEPS.has(c)) {
      if (written.charCodeAt(j) !== c) return false;
      j += 1;
    } else {
      if (written.slice(j, j + 3) !== `%${c.toString(16).toUpperCase().padStart(2, '0')}`) return false;
      j += 3;
    }
  }
  return j === written.length;
}

/** `""` or `:` and digits only. */
const validOptionalPort = (p: string): boolean => p === '' || /^:[0-9]*$/.test(p);

/** `[a-zA-Z][a-zA-Z0-9+.-]*` before the first `:`, or no scheme; a `:` first is an error. */
function splitScheme(raw: string): [scheme: string, rest: string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) continue;
    if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === 0x3a) {
      if (i === 0) throw new Refusal('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

/** An IP literal in brackets: an IPv6 address (`netip.ParseAddr`), with an optional zone after `%25`, then `:port`. */
function parseIPLiteral(host: string): string {
  const close = host.lastIndexOf(']');
  if (close < 0) throw new Refusal("missing ']' in host");
  const colonPort = host.slice(close + 1);
  if (!validOptionalPort(colonPort)) throw new Refusal(`invalid port ${quote(colonPort)} after host`);
  const inner = host.slice(1, close);
  const zone = inner.indexOf('%25');
  const name = zone < 0 ? unescape(inner, 'host') : unescape(inner.slice(0, zone), 'host') + unescape(inner.slice(zone), 'zone');
  const addr = parseAddr(name);
  if ('error' in addr) {
    const { msg, at } = addr.error;
    throw new Refusal(`invalid host: ParseAddr(${quote(name)}): ${msg}${at === '' ? '' : ` (at ${quote(at)})`}`);
  }
  // Only an IPv6 address may stand in brackets (an IPv4-mapped one may).
  if (addr.is4) throw new Refusal('invalid IP-literal');
  return `[${name}]${colonPort}`;
}

/** Go's `parseHost`: host[:port], unescaped. */
function parseHost(scheme: string, host: string): string {
  const open = host.lastIndexOf('[');
  if (open > 0) throw new Refusal('invalid IP-literal');
  if (open === 0) return parseIPLiteral(host);
  const first = host.indexOf(':');
  if (first >= 0) {
    // Go 1.26 takes the first colon as the port's in an http(s) host, so `http://::1/` and
    // `http://x:80:80/` are refused; other schemes keep the old rule, the last colon.
    const at = scheme === 'http' || scheme === 'https' ? first : host.lastIndexOf(':');
    const colonPort = host.slice(at);
    if (!validOptionalPort(colonPort)) throw new Refusal(`invalid port ${quote(colonPort)} after host`);
  }
  return unescape(host, 'host');
}

/** Go's `parseAuthority`: [userinfo@]host; the userinfo is checked but not kept (OPA does not report it). */
function parseAuthority(scheme: string, authority: string): string {
  const at = authority.lastIndexOf('@');
  const host = parseHost(scheme, authority.slice(at + 1));
  if (at >= 0) {
    const userinfo = authority.slice(0, at);
    for (let i = 0; i < userinfo.length; i++) {
      const c = userinfo.charCodeAt(i);
      if (!isAlnum(c) && !USERINFO_KEEPS.has(c)) throw new Refusal('net/url: invalid userinfo');
    }
    // The user and the password are decoded apart: `a%:b` fails on "%", not "%:b".
    const colon = userinfo.indexOf(':');
    if (colon < 0) unescape(userinfo, 'other');
    else {
      unescape(userinfo.slice(0, colon), 'other');
      unescape(userinfo.slice(colon + 1), 'other');
    }
  }
  return host;
}

/** Go's `splitHostPort` behind `Hostname()` and `Port()`: a valid `:digits` at the end is the port; brackets go. */
function splitHostPort(host: string): [name: string, port: string] {
  const colon = host.lastIndexOf(':');
  let name = host;
  let port = '';
  if (colon >= 0 && validOptionalPort(host.slice(colon))) {
    name = host.slice(0, colon);
    port = host.slice(colon + 1);
  }
  if (name.startsWith('[') && name.endsWith(']')) name = name.slice(1, -1);
  return [name, port];
}

/** Go's `parse(rawURL, viaRequest=false)`, before the fragment; parts as byte strings. */
function parseBeforeFragment(raw: string): Omit<GoURL, 'fragment'> {
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new Refusal('net/url: invalid control character in URL');
  const [written, afterScheme] = splitScheme(raw);
  const scheme = written.toLowerCase();
  let rest = afterScheme;
  let rawQuery = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    // A lone `?` at the end is Go's ForceQuery: an empty query.
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  const url = { scheme, hostname: '', port: '', path: '', rawPath: '', rawQuery };
  if (!rest.startsWith('/')) {
    // `scheme:opaque`: OPA reports neither host nor path.
    if (scheme !== '') return url;
    // RFC 3986 §3.3: a relative reference's first segment cannot hold a colon (`cache_object:foo/bar` is no scheme).
    const slash = rest.indexOf('/');
    if ((slash < 0 ? rest : rest.slice(0, slash)).includes(':')) throw new Refusal('first path segment in URL cannot contain colon');
  }
  if ((scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash < 0 ? '' : rest.slice(slash);
    [url.hostname, url.port] = splitHostPort(parseAuthority(scheme, authority));
  }
  url.path = unescape(rest, 'other');
  // Go keeps the written path only when its own escaping of the decoded one differs.
  if (!escapesTo(url.path, rest)) url.rawPath = rest;
  return url;
}

/**
 * Go's `url.Parse`, on a text.
 *
 * @example
 * goParseURL('http://x.com:80/a%2fb?q=1#f')
 * // { url: { scheme: 'http', hostname: 'x.com', port: '80', path: '/a/b', rawPath: '/a%2fb', rawQuery: 'q=1', fragment: 'f' } }
 * goParseURL('http://x:abc') // { error: 'parse "http://x:abc": invalid port ":abc" after host' }
 */
export function goParseURL(text: string): GoURLResult {
  const raw = toBytes(text);
  const hash = raw.indexOf('#');
  const beforeFragment = hash < 0 ? raw : raw.slice(0, hash);
  let parts: Omit<GoURL, 'fragment'>;
  let fragment = '';
  try {
    parts = parseBeforeFragment(beforeFragment);
  } catch (e) {
    if (e instanceof Refusal) return { error: `parse ${quote(beforeFragment)}: ${e.message}` };
    throw e;
  }
  try {
    if (hash >= 0) fragment = unescape(raw.slice(hash + 1), 'other');
  } catch (e) {
    // A bad fragment is reported against the whole text.
    if (e instanceof Refusal) return { error: `parse ${quote(raw)}: ${e.message}` };
    throw e;
  }
  const url: GoURL = {
    scheme: toText(parts.scheme),
    hostname: toText(parts.hostname),
    port: toText(parts.port),
    path: toText(parts.path),
    rawPath: toText(parts.rawPath),
    rawQuery: toText(parts.rawQuery),
    fragment: toText(fragment),
  };
  return { url };
}
