/**
 * A small DER reader and the X.509 structures OPA exposes (Go's
 * `x509.Certificate` / `x509.CertificateRequest` as JSON): the byte fields
 * come as base64, OIDs as integer arrays, names as `pkix.Name`.
 * Signatures are not checked here (node:crypto does that).
 */
import { createPublicKey } from 'node:crypto';
import { RegoObject, type Value, bigNum } from '../value.js';
import { BuiltinError } from './registry.js';

export interface Der {
  tag: number;
  /** Whole element (header + content). */
  raw: Buffer;
  content: Buffer;
}

export class DerError extends Error {}

/** Reads the elements of `buf` (a concatenation of DER elements). */
export function readAll(buf: Buffer): Der[] {
  const out: Der[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const el = readOne(buf, pos);
    out.push(el);
    pos += el.raw.length;
  }
  return out;
}

export function readOne(buf: Buffer, pos = 0): Der {
  if (pos + 2 > buf.length) throw new DerError('truncated');
  const tag = buf[pos] as number;
  if ((tag & 0x1f) === 0x1f) throw new DerError('high tag numbers are not supported');
  let len = buf[pos + 1] as number;
  let hdr = 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || pos + 2 + n > buf.length) throw new DerError('bad length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + (buf[pos + 2 + i] as number);
    hdr += n;
  }
  if (pos + hdr + len > buf.length) throw new DerError('truncated');
  return { tag, raw: buf.subarray(pos, pos + hdr + len), content: buf.subarray(pos + hdr, pos + hdr + len) };
}

function children(d: Der): Der[] {
  return readAll(d.content);
}

export function oid(content: Buffer): number[] {
  const out: number[] = [];
  let v = 0;
  for (let i = 0; i < content.length; i++) {
    const b = content[i] as number;
    v = v * 128 + (b & 0x7f);
    if ((b & 0x80) === 0) {
      if (out.length === 0) {
        const first = v < 80 ? Math.floor(v / 40) : 2;
        out.push(first, v - first * 40);
      } else out.push(v);
      v = 0;
    }
  }
  return out;
}

function bigUnsigned(b: Buffer): bigint {
  return b.length === 0 ? 0n : BigInt('0x' + b.toString('hex'));
}

function bigSigned(b: Buffer): bigint {
  const u = bigUnsigned(b);
  return b.length > 0 && ((b[0] as number) & 0x80) !== 0 ? u - (1n << BigInt(b.length * 8)) : u;
}

function intValue(b: Buffer): number {
  return Number(bigSigned(b));
}

const b64 = (b: Buffer): string => b.toString('base64');
const obj = (entries: Array<[string, Value]>): RegoObject => RegoObject.fromEntries(entries);
const strings = (xs: string[]): Value => (xs.length === 0 ? null : xs);

function derString(d: Der): string {
  switch (d.tag) {
    case 0x1e: {
      // BMPString: UTF-16BE
      const sw = Buffer.from(d.content);
      sw.swap16();
      return sw.toString('utf16le');
    }
    case 0x1c:
      return String.fromCodePoint(...Array.from({ length: d.content.length / 4 }, (_, i) => d.content.readUInt32BE(i * 4)));
    case 0x14:
    case 0x16:
    case 0x13:
      return d.content.toString('latin1');
    default:
      return d.content.toString('utf8');
  }
}

function timeOf(d: Der): string {
  const s = d.content.toString('latin1');
  let full: string;
  if (d.tag === 0x17) {
    const yy = Number(s.slice(0, 2));
    full = `${yy >= 50 ? 19 : 20}${s}`;
  } else full = s;
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(full);
  if (m === null) throw new DerError('bad time');
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`;
}

const NAME_FIELDS: Record<string, string> = {
  '2.5.4.6': 'Country',
  '2.5.4.10': 'Organization',
  '2.5.4.11': 'OrganizationalUnit',
  '2.5.4.7': 'Locality',
  '2.5.4.8': 'Province',
  '2.5.4.9': 'StreetAddress',
  '2.5.4.17': 'PostalCode',
};

/** Go's `pkix.Name` from a DER Name. */
function pkixName(d: Der): RegoObject {
  const lists: Record<string, string[]> = {};
  for (const f of Object.values(NAME_FIELDS)) lists[f] = [];
  let cn = '';
  let serial = '';
  const names: Value[] = [];
  for (const rdn of children(d)) {
    for (const atv of children(rdn)) {
      const [t, v] = children(atv);
      if (t === undefined || v === undefined) throw new DerError('bad name');
      const id = oid(t.content);
      const value = derString(v);
      names.push(
        obj([
          ['Type', id],
          ['Value', value],
        ]),
      );
      const key = id.join('.');
      if (key === '2.5.4.3') cn = value;
      else if (key === '2.5.4.5') serial = value;
      else if (NAME_FIELDS[key] !== undefined) lists[NAME_FIELDS[key]]?.push(value);
    }
  }
  return obj([
    ...Object.entries(lists).map(([k, v]): [string, Value] => [k, strings(v)]),
    ['SerialNumber', serial],
    ['CommonName', cn],
    ['Names', names.length === 0 ? null : names],
    ['ExtraNames', null],
  ]);
}

const SIG_ALGS: Record<string, number> = {
  '1.2.840.113549.1.1.2': 1,
  '1.2.840.113549.1.1.4': 2,
  '1.2.840.113549.1.1.5': 3,
  '1.2.840.113549.1.1.11': 4,
  '1.2.840.113549.1.1.12': 5,
  '1.2.840.113549.1.1.13': 6,
  '1.2.840.10040.4.3': 7,
  '2.16.840.1.101.3.4.3.2': 8,
  '1.2.840.10045.4.1': 9,
  '1.2.840.10045.4.3.2': 10,
  '1.2.840.10045.4.3.3': 11,
  '1.2.840.10045.4.3.4': 12,
  '1.3.101.112': 16,
};
const PSS_HASH: Record<string, number> = { '2.16.840.1.101.3.4.2.1': 13, '2.16.840.1.101.3.4.2.2': 14, '2.16.840.1.101.3.4.2.3': 15 };

function sigAlg(d: Der): number {
  const [id, params] = children(d);
  if (id === undefined) return 0;
  const key = oid(id.content).join('.');
  if (key === '1.2.840.113549.1.1.10') {
    // RSASSA-PSS: the hash is in the parameters.
    try {
      const first = params === undefined ? undefined : children(params)[0];
      const hashAlg = first === undefined ? undefined : children(readOne(first.content))[0];
      return hashAlg === undefined ? 0 : (PSS_HASH[oid(hashAlg.content).join('.')] ?? 0);
    } catch {
      return 0;
    }
  }
  return SIG_ALGS[key] ?? 0;
}

const PK_ALGS: Record<string, number> = { '1.2.840.113549.1.1.1': 1, '1.2.840.10040.4.1': 2, '1.2.840.10045.2.1': 3, '1.3.101.112': 4 };

/** Go's public key JSON: RSA {N, E}, ECDSA {Curve: {}, X, Y}, Ed25519 base64 bytes. */
function publicKey(spki: Der): [number, Value] {
  const [alg, bits] = children(spki);
  if (alg === undefined || bits === undefined) throw new DerError('bad public key');
  const algo = PK_ALGS[oid((children(alg)[0] as Der).content).join('.')] ?? 0;
  const key = bits.content.subarray(1);
  if (algo === 1) {
    const [n, e] = children(readOne(key));
    if (n === undefined || e === undefined) throw new DerError('bad RSA key');
    return [
      1,
      obj([
        ['N', bigNum(bigUnsigned(n.content))],
        ['E', bigNum(bigUnsigned(e.content))],
      ]),
    ];
  }
  if (algo === 3) {
    if (key[0] !== 4) return [3, null];
    const size = (key.length - 1) / 2;
    return [
      3,
      obj([
        ['Curve', new RegoObject()],
        ['X', bigNum(bigUnsigned(key.subarray(1, 1 + size)))],
        ['Y', bigNum(bigUnsigned(key.subarray(1 + size)))],
      ]),
    ];
  }
  if (algo === 4) return [4, b64(key)];
  if (algo === 2) return [2, obj([['Y', bigNum(bigUnsigned(readOne(key).content))]])];
  return [0, null];
}

/** Go's `url.URL` JSON for a URI SAN. */
function urlJSON(s: string): RegoObject {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(\/\/([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?$/.exec(s);
  const hasAuthority = m?.[2] !== undefined;
  let host = m?.[3] ?? '';
  let user: Value = null;
  const at = host.lastIndexOf('@');
  if (at >= 0) {
    const u = host.slice(0, at);
    const colon = u.indexOf(':');
    user = obj([]);
    host = host.slice(at + 1);
    void colon;
  }
  const path = m?.[4] ?? '';
  const opaque = m !== null && !hasAuthority && !path.startsWith('/') ? path : '';
  return obj([
    ['Scheme', (m?.[1] ?? '').toLowerCase()],
    ['Opaque', opaque],
    ['User', user],
    ['Host', host],
    ['Path', opaque !== '' ? '' : decodeURIComponentSafe(path)],
    ['RawPath', ''],
    ['OmitHost', false],
    ['ForceQuery', m?.[5] === '?' && (m?.[6] ?? '') === ''],
    ['RawQuery', m?.[6] ?? ''],
    ['Fragment', decodeURIComponentSafe(m?.[8] ?? '')],
    ['RawFragment', ''],
  ]);
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function ipString(b: Buffer): string {
  if (b.length === 4) return [...b].join('.');
  if (b.length === 16) {
    if (b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return [...b.subarray(12)].join('.');
    const groups = Array.from({ length: 8 }, (_, i) => b.readUInt16BE(i * 2).toString(16));
    // Compress the longest run of zero groups (at least two), as Go does.
    let best = -1;
    let bestLen = 1;
    for (let i = 0; i < 8; i++) {
      let j = i;
      while (j < 8 && groups[j] === '0') j++;
      if (j - i > bestLen) {
        best = i;
        bestLen = j - i;
      }
    }
    if (best < 0) return groups.join(':');
    return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
  }
  return '?' + b.toString('hex');
}

interface SANs {
  dns: string[];
  email: string[];
  ip: string[];
  uri: string[];
}

function parseSANs(value: Buffer, into: SANs): void {
  for (const g of children(readOne(value))) {
    const t = g.tag & 0x1f;
    if (t === 1) into.email.push(g.content.toString('latin1'));
    else if (t === 2) into.dns.push(g.content.toString('latin1'));
    else if (t === 6) into.uri.push(g.content.toString('latin1'));
    else if (t === 7) into.ip.push(ipString(g.content));
  }
}

const EKU: Record<string, number> = {
  '2.5.29.37.0': 0,
  '1.3.6.1.5.5.7.3.1': 1,
  '1.3.6.1.5.5.7.3.2': 2,
  '1.3.6.1.5.5.7.3.3': 3,
  '1.3.6.1.5.5.7.3.4': 4,
  '1.3.6.1.5.5.7.3.5': 5,
  '1.3.6.1.5.5.7.3.6': 6,
  '1.3.6.1.5.5.7.3.7': 7,
  '1.3.6.1.5.5.7.3.8': 8,
  '1.3.6.1.5.5.7.3.9': 9,
  '1.3.6.1.4.1.311.10.3.3': 10,
  '2.16.840.1.113730.4.1': 11,
  '1.3.6.1.4.1.311.2.1.22': 12,
  '1.3.6.1.4.1.311.61.1.1': 13,
};

/** Extension fields Go fills from the extensions it understands. */
interface ExtFields {
  keyUsage: number;
  extKeyUsage: number[];
  unknownEku: number[][];
  bcValid: boolean;
  isCA: boolean;
  maxPathLen: number;
  maxPathLenZero: boolean;
  skid: string | null;
  akid: string | null;
  ocsp: string[];
  issuingURL: string[];
  crl: string[];
  policies: number[][];
  sans: SANs;
  unhandled: number[][];
  list: RegoObject[];
}

const HANDLED = new Set([
  '2.5.29.15',
  '2.5.29.19',
  '2.5.29.17',
  '2.5.29.37',
  '2.5.29.14',
  '2.5.29.35',
  '1.3.6.1.5.5.7.1.1',
  '2.5.29.31',
  '2.5.29.32',
  '2.5.29.30',
]);

function extensions(list: Der[]): ExtFields {
  const f: ExtFields = {
    keyUsage: 0,
    extKeyUsage: [],
    unknownEku: [],
    bcValid: false,
    isCA: false,
    maxPathLen: 0,
    maxPathLenZero: false,
    skid: null,
    akid: null,
    ocsp: [],
    issuingURL: [],
    crl: [],
    policies: [],
    sans: { dns: [], email: [], ip: [], uri: [] },
    unhandled: [],
    list: [],
  };
  for (const ext of list) {
    const parts = children(ext);
    const id = oid((parts[0] as Der).content);
    const critical = parts.length === 3 && (parts[1] as Der).tag === 0x01 && (parts[1] as Der).content[0] !== 0;
    const value = (parts[parts.length - 1] as Der).content;
    f.list.push(
      obj([
        ['Id', id],
        ['Critical', critical],
        ['Value', b64(value)],
      ]),
    );
    const key = id.join('.');
    if (critical && !HANDLED.has(key)) f.unhandled.push(id);
    switch (key) {
      case '2.5.29.15': {
        const bits = readOne(value).content;
        let ku = 0;
        for (let i = 0; i < (bits.length - 1) * 8; i++) if (((bits[1 + (i >> 3)] as number) >> (7 - (i & 7))) & 1) ku |= 1 << i;
        f.keyUsage = ku;
        break;
      }
      case '2.5.29.19': {
        f.bcValid = true;
        f.maxPathLen = -1;
        for (const c of children(readOne(value))) {
          if (c.tag === 0x01) f.isCA = c.content[0] !== 0;
          if (c.tag === 0x02) {
            f.maxPathLen = intValue(c.content);
            f.maxPathLenZero = f.maxPathLen === 0;
          }
        }
        break;
      }
      case '2.5.29.17':
        parseSANs(value, f.sans);
        break;
      case '2.5.29.37':
        for (const c of children(readOne(value))) {
          const o = oid(c.content);
          const known = EKU[o.join('.')];
          if (known !== undefined) f.extKeyUsage.push(known);
          else f.unknownEku.push(o);
        }
        break;
      case '2.5.29.14':
        f.skid = b64(readOne(value).content);
        break;
      case '2.5.29.35':
        for (const c of children(readOne(value))) if (c.tag === 0x80) f.akid = b64(c.content);
        break;
      case '1.3.6.1.5.5.7.1.1':
        for (const ad of children(readOne(value))) {
          const [m, loc] = children(ad);
          if (m === undefined || loc === undefined || loc.tag !== 0x86) continue;
          const method = oid(m.content).join('.');
          if (method === '1.3.6.1.5.5.7.48.1') f.ocsp.push(loc.content.toString('latin1'));
          if (method === '1.3.6.1.5.5.7.48.2') f.issuingURL.push(loc.content.toString('latin1'));
        }
        break;
      case '2.5.29.31':
        for (const dp of children(readOne(value))) {
          for (const c of children(dp)) {
            if (c.tag !== 0xa0) continue;
            for (const fullName of children(c)) {
              if (fullName.tag !== 0xa0) continue;
              for (const g of children(fullName)) if (g.tag === 0x86) f.crl.push(g.content.toString('latin1'));
            }
          }
        }
        break;
      case '2.5.29.32':
        for (const pi of children(readOne(value))) f.policies.push(oid((children(pi)[0] as Der).content));
        break;
    }
  }
  return f;
}

function tlv(d: Der | undefined, what: string): Der {
  if (d === undefined) throw new DerError(what);
  return d;
}

/** Go's `x509.Certificate` as a Rego object. */
export function certificateJSON(der: Buffer): RegoObject {
  const cert = readOne(der);
  if (cert.raw.length !== der.length) throw new DerError('trailing data');
  const [tbs, sigAlgD, sig] = children(cert);
  const t = children(tlv(tbs, 'tbs'));
  let i = 0;
  let version = 1;
  if (t[0]?.tag === 0xa0) {
    version = intValue(readOne(t[0].content).content) + 1;
    i = 1;
  }
  const serial = tlv(t[i], 'serial');
  const issuer = tlv(t[i + 2], 'issuer');
  const validity = children(tlv(t[i + 3], 'validity'));
  const subject = tlv(t[i + 4], 'subject');
  const spki = tlv(t[i + 5], 'spki');
  const extWrapper = t.slice(i + 6).find((x) => x.tag === 0xa3);
  const ext = extensions(extWrapper === undefined ? [] : children(readOne(extWrapper.content)));
  const [pkAlgo, pk] = publicKey(spki);
  const sans = ext.sans;
  return obj([
    ['Raw', b64(cert.raw)],
    ['RawTBSCertificate', b64(tlv(tbs, 'tbs').raw)],
    ['RawSubjectPublicKeyInfo', b64(spki.raw)],
    ['RawSubject', b64(subject.raw)],
    ['RawIssuer', b64(issuer.raw)],
    ['Signature', b64(tlv(sig, 'signature').content.subarray(1))],
    ['SignatureAlgorithm', sigAlg(tlv(sigAlgD, 'signature algorithm'))],
    ['PublicKeyAlgorithm', pkAlgo],
    ['PublicKey', pk],
    ['Version', version],
    ['SerialNumber', bigNum(bigSigned(serial.content))],
    ['Issuer', pkixName(issuer)],
    ['Subject', pkixName(subject)],
    ['NotBefore', timeOf(tlv(validity[0], 'validity'))],
    ['NotAfter', timeOf(tlv(validity[1], 'validity'))],
    ['KeyUsage', ext.keyUsage],
    ['Extensions', ext.list.length === 0 ? null : ext.list],
    ['ExtraExtensions', null],
    ['UnhandledCriticalExtensions', ext.unhandled.length === 0 ? null : ext.unhandled],
    ['ExtKeyUsage', ext.extKeyUsage.length === 0 ? null : ext.extKeyUsage],
    ['UnknownExtKeyUsage', ext.unknownEku.length === 0 ? null : ext.unknownEku],
    ['BasicConstraintsValid', ext.bcValid],
    ['IsCA', ext.isCA],
    ['MaxPathLen', ext.maxPathLen],
    ['MaxPathLenZero', ext.maxPathLenZero],
    ['SubjectKeyId', ext.skid],
    ['AuthorityKeyId', ext.akid],
    ['OCSPServer', strings(ext.ocsp)],
    ['IssuingCertificateURL', strings(ext.issuingURL)],
    ['DNSNames', strings(sans.dns)],
    ['EmailAddresses', strings(sans.email)],
    ['IPAddresses', strings(sans.ip)],
    ['URIs', sans.uri.length === 0 ? null : sans.uri.map(urlJSON)],
    ['URIStrings', strings(sans.uri)],
    ['PermittedDNSDomainsCritical', false],
    ['PermittedDNSDomains', null],
    ['ExcludedDNSDomains', null],
    ['PermittedIPRanges', null],
    ['ExcludedIPRanges', null],
    ['PermittedEmailAddresses', null],
    ['ExcludedEmailAddresses', null],
    ['PermittedURIDomains', null],
    ['ExcludedURIDomains', null],
    ['CRLDistributionPoints', strings(ext.crl)],
    ['PolicyIdentifiers', ext.policies.length === 0 ? null : ext.policies],
    ['Policies', ext.policies.length === 0 ? null : ext.policies.map((p) => p.join('.'))],
    ['InhibitAnyPolicy', 0],
    ['InhibitAnyPolicyZero', false],
    ['InhibitPolicyMapping', 0],
    ['InhibitPolicyMappingZero', false],
    ['RequireExplicitPolicy', 0],
    ['RequireExplicitPolicyZero', false],
    ['PolicyMappings', null],
  ]);
}

/** Go's `x509.CertificateRequest` as a Rego object. */
export function certificateRequestJSON(der: Buffer): RegoObject {
  const csr = readOne(der);
  const [info, sigAlgD, sig] = children(csr);
  const parts = children(tlv(info, 'certificationRequestInfo'));
  const subject = tlv(parts[1], 'subject');
  const spki = tlv(parts[2], 'spki');
  const [pkAlgo, pk] = publicKey(spki);
  const attrs = parts[3] !== undefined && parts[3].tag === 0xa0 ? children(parts[3]) : [];
  let ext: ExtFields | undefined;
  const attributes: Value[] = [];
  for (const a of attrs) {
    const [typ, values] = children(a);
    if (typ === undefined || values === undefined) continue;
    const id = oid(typ.content);
    if (id.join('.') === '1.2.840.113549.1.9.14') {
      const exts = children(tlv(children(values)[0], 'extensions'));
      ext = extensions(exts);
      attributes.push(
        obj([
          ['Type', id],
          [
            'Value',
            [
              exts.map((e) => {
                const p = children(e);
                return obj([
                  ['Type', oid((p[0] as Der).content)],
                  ['Value', b64((p[p.length - 1] as Der).content)],
                ]);
              }),
            ],
          ],
        ]),
      );
    }
  }
  const sans = ext?.sans ?? { dns: [], email: [], ip: [], uri: [] };
  return obj([
    ['Raw', b64(csr.raw)],
    ['RawTBSCertificateRequest', b64(tlv(info, 'info').raw)],
    ['RawSubjectPublicKeyInfo', b64(spki.raw)],
    ['RawSubject', b64(subject.raw)],
    ['Version', intValue(tlv(parts[0], 'version').content)],
    ['Signature', b64(tlv(sig, 'signature').content.subarray(1))],
    ['SignatureAlgorithm', sigAlg(tlv(sigAlgD, 'signature algorithm'))],
    ['PublicKeyAlgorithm', pkAlgo],
    ['PublicKey', pk],
    ['Subject', pkixName(subject)],
    ['Attributes', attributes.length === 0 ? null : attributes],
    ['Extensions', ext === undefined || ext.list.length === 0 ? null : ext.list],
    ['ExtraExtensions', null],
    ['DNSNames', strings(sans.dns)],
    ['EmailAddresses', strings(sans.email)],
    ['IPAddresses', strings(sans.ip)],
    ['URIs', sans.uri.length === 0 ? null : sans.uri.map(urlJSON)],
  ]);
}

/** Checks that `der` holds a public key node:crypto understands (for verification). */
export function spkiKey(spkiDer: Buffer): ReturnType<typeof createPublicKey> {
  try {
    return createPublicKey({ key: spkiDer, format: 'der', type: 'spki' });
  } catch (e) {
    throw new BuiltinError(`x509: ${e instanceof Error ? e.message : String(e)}`);
  }
}
