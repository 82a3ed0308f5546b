/**
 * crypto.x509.* and crypto.parse_private_keys, as OPA: certificates and
 * requests come out as Go's `x509.Certificate` / `x509.CertificateRequest`
 * JSON (see x509-der.ts); chains are verified with node:crypto's
 * X509Certificate (signatures, issuer/subject links, validity period, CA
 * basic constraints, extended key usage, host name), the way Go's
 * `Certificate.Verify` checks them with the first certificate as the only
 * root and the last as the leaf. Private keys are read with node:crypto
 * KeyObject and written as Go's key structs (RSA `{N, E, D, Primes,
 * Precomputed}`, ECDSA `{Curve, X, Y, D}`) or, for parse_rsa_private_key, as
 * a JWK.
 */
import { isIP } from 'node:net';
import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { RegoObject, RegoSet, type Value, bigNum } from '../value.js';
import { formatValue } from '../value-format.js';
import { asObject, asString, type BuiltinDefinition, BuiltinError, operandTypeError } from './registry.js';
import { certificateJSON, certificateRequestJSON, DerError, readAll } from './x509-der.js';

interface PemBlock {
  type: string;
  bytes: Buffer;
}

/** Go's `pem.Decode` applied repeatedly: every well-formed block, in order. */
function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  const re = /-----BEGIN ([^-\r\n]*)-----\r?\n([\s\S]*?)-----END \1-----/g;
  for (const m of text.matchAll(re)) {
    const body = (m[2] ?? '')
      .split(/\r?\n/)
      .filter((l) => !/^[\w-]+:/.test(l))
      .join('');
    out.push({ type: m[1] ?? '', bytes: Buffer.from(body, 'base64') });
  }
  return out;
}

/** Go's `base64.StdEncoding.DecodeString` (newlines ignored), with its error message. */
function stdBase64(s: string): Buffer {
  const clean = s.replace(/[\r\n]/g, '');
  const m = /^[A-Za-z0-9+/]*={0,2}$/.exec(clean);
  if (m === null || clean.length % 4 !== 0) {
    let bad = clean.search(/[^A-Za-z0-9+/=]/);
    if (bad < 0) bad = clean.indexOf('=') >= 0 && clean.indexOf('=') < clean.length - 2 ? clean.indexOf('=') : Math.floor(clean.length / 4) * 4;
    throw new BuiltinError(`illegal base64 data at input byte ${bad}`);
  }
  return Buffer.from(clean, 'base64');
}

const startsWithPem = (b: Buffer | string): boolean => (typeof b === 'string' ? b : b.toString('latin1')).startsWith('-----BEGIN');

function certDERs(input: string): Buffer[] {
  let pem: string | undefined;
  let der: Buffer | undefined;
  if (startsWithPem(input)) pem = input;
  else {
    const raw = stdBase64(input);
    if (startsWithPem(raw)) pem = raw.toString('latin1');
    else der = raw;
  }
  if (pem !== undefined) {
    const blocks = pemBlocks(pem);
    for (const b of blocks) if (b.type !== 'CERTIFICATE') throw new BuiltinError(`PEM block type is '${b.type}', expected CERTIFICATE`);
    der = Buffer.concat(blocks.map((b) => b.bytes));
  }
  try {
    return readAll(der ?? Buffer.alloc(0)).map((d) => Buffer.from(d.raw));
  } catch {
    throw new BuiltinError('x509: malformed certificate');
  }
}

function certsJSON(ders: Buffer[]): RegoObject[] {
  try {
    return ders.map(certificateJSON);
  } catch (e) {
    if (e instanceof DerError) throw new BuiltinError('x509: malformed certificate');
    throw e;
  }
}

function x509Of(der: Buffer): X509Certificate {
  try {
    return new X509Certificate(der);
  } catch {
    throw new BuiltinError('x509: malformed certificate');
  }
}

const KEY_USAGES: Record<string, string> = {
  KeyUsageAny: '2.5.29.37.0',
  KeyUsageServerAuth: '1.3.6.1.5.5.7.3.1',
  KeyUsageClientAuth: '1.3.6.1.5.5.7.3.2',
  KeyUsageCodeSigning: '1.3.6.1.5.5.7.3.3',
  KeyUsageEmailProtection: '1.3.6.1.5.5.7.3.4',
  KeyUsageIPSECEndSystem: '1.3.6.1.5.5.7.3.5',
  KeyUsageIPSECTunnel: '1.3.6.1.5.5.7.3.6',
  KeyUsageIPSECUser: '1.3.6.1.5.5.7.3.7',
  KeyUsageTimeStamping: '1.3.6.1.5.5.7.3.8',
  KeyUsageOCSPSigning: '1.3.6.1.5.5.7.3.9',
  KeyUsageMicrosoftServerGatedCrypto: '1.3.6.1.4.1.311.10.3.3',
  KeyUsageNetscapeServerGatedCrypto: '2.16.840.1.113730.4.1',
  KeyUsageMicrosoftCommercialCodeSigning: '1.3.6.1.4.1.311.2.1.22',
  KeyUsageMicrosoftKernelCodeSigning: '1.3.6.1.4.1.311.61.1.1',
};

interface VerifyOptions {
  dnsName?: string;
  /** Milliseconds since the epoch. */
  now: number;
  keyUsages: string[];
}

/** The extended key usages a certificate allows (undefined: any). */
function ekuOf(c: X509Certificate): Set<string> | undefined {
  const k = c.keyUsage as string[] | undefined;
  return k === undefined ? undefined : new Set(k);
}

/**
 * Go's `Certificate.Verify` with `certs[0]` as the only root,
 * `certs[1..n-2]` as intermediates and `certs[n-1]` as the leaf. Returns the
 * chain leaf → root, or undefined when no valid chain exists.
 */
function verifyChain(ders: Buffer[], opts: VerifyOptions): Buffer[] | undefined {
  const certs = ders.map(x509Of);
  const root = certs[0] as X509Certificate;
  const leaf = certs[certs.length - 1] as X509Certificate;
  const intermediates = certs.slice(1, -1).map((c, i) => ({ c, der: ders[i + 1] as Buffer }));
  const inTime = (c: X509Certificate) => opts.now >= Date.parse(c.validFrom) && opts.now <= Date.parse(c.validTo);
  if (
    opts.dnsName !== undefined &&
    opts.dnsName !== '' &&
    (isIP(opts.dnsName) === 0 ? leaf.checkHost(opts.dnsName) === undefined : leaf.checkIP(opts.dnsName) === undefined)
  ) {
    return undefined;
  }
  const wanted = opts.keyUsages.length === 0 ? [KEY_USAGES['KeyUsageServerAuth'] as string] : opts.keyUsages;
  const anyWanted = wanted.includes(KEY_USAGES['KeyUsageAny'] as string);
  const signedBy = (child: X509Certificate, parent: X509Certificate) => {
    try {
      return child.checkIssued(parent) && child.verify(parent.publicKey);
    } catch {
      return false;
    }
  };
  const search = (cur: X509Certificate, chain: Buffer[], used: Set<number>): Buffer[] | undefined => {
    if (!inTime(cur)) return undefined;
    if (cur.raw.equals(root.raw)) return chain;
    if (signedBy(cur, root) && root.ca && inTime(root)) return [...chain, ders[0] as Buffer];
    for (let i = 0; i < intermediates.length; i++) {
      const { c, der } = intermediates[i] as { c: X509Certificate; der: Buffer };
      if (used.has(i) || !c.ca || !signedBy(cur, c)) continue;
      const found = search(c, [...chain, der], new Set([...used, i]));
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const chain = search(leaf, [ders[ders.length - 1] as Buffer], new Set());
  if (chain === undefined) return undefined;
  if (!anyWanted) {
    // Every certificate in the chain that restricts its usages must allow a wanted one.
    for (const der of chain) {
      const eku = ekuOf(new X509Certificate(der));
      if (eku === undefined || eku.has(KEY_USAGES['KeyUsageAny'] as string)) continue;
      if (!wanted.some((u) => eku.has(u))) return undefined;
    }
  }
  return chain;
}

function parseAndVerify(input: string, opts: VerifyOptions): Value {
  const invalid: Value = [false, []];
  let ders: Buffer[];
  try {
    ders = certDERs(input);
  } catch (e) {
    if (e instanceof BuiltinError) return invalid;
    throw e;
  }
  if (ders.length < 2) return invalid;
  let chain: Buffer[] | undefined;
  try {
    chain = verifyChain(ders, opts);
  } catch (e) {
    if (e instanceof BuiltinError) return invalid;
    throw e;
  }
  return chain === undefined ? invalid : [true, certsJSON(chain)];
}

function verifyOptions(o: RegoObject, nowNs: bigint): VerifyOptions {
  const opts: VerifyOptions = { now: Number(nowNs / 1_000_000n), keyUsages: [] };
  for (const [k, v] of o.entries()) {
    switch (k) {
      case 'DNSName':
        if (typeof v !== 'string') throw new BuiltinError(`'DNSName' should be a string`);
        opts.dnsName = v;
        break;
      case 'CurrentTime':
        if (typeof v !== 'number' && typeof v !== 'bigint') throw new BuiltinError(`'CurrentTime' should be a number`);
        opts.now = Number(BigInt(v) / 1_000_000n);
        break;
      case 'MaxConstraintComparisons':
        if (typeof v !== 'number' && typeof v !== 'bigint') throw new BuiltinError(`'MaxConstraintComparisons' should be a number`);
        break;
      case 'KeyUsages': {
        if (!Array.isArray(v) && !(v instanceof RegoSet)) throw new BuiltinError(`'KeyUsages' should be an Array or Set`);
        const bad: string[] = [];
        for (const u of Array.isArray(v) ? v : v.values()) {
          const id = typeof u === 'string' ? KEY_USAGES[u] : undefined;
          if (id === undefined) bad.push(typeof u === 'string' ? u : formatValue(u));
          else opts.keyUsages.push(id);
        }
        if (bad.length > 0) throw new BuiltinError(`invalid entries for 'KeyUsages' found: [${bad.join(' ')}]`);
        break;
      }
      default:
        throw new BuiltinError('invalid key option');
    }
  }
  return opts;
}

function bigFromB64url(s: unknown): Value {
  return bigNum(BigInt('0x' + (Buffer.from(String(s), 'base64url').toString('hex') || '0')));
}

/** A private key as Go's key struct JSON. */
function goPrivateKey(key: KeyObject): Value {
  const jwk = key.export({ format: 'jwk' }) as Record<string, string>;
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return RegoObject.fromEntries([
        ['N', bigFromB64url(jwk['n'])],
        ['E', bigFromB64url(jwk['e'])],
        ['D', bigFromB64url(jwk['d'])],
        ['Primes', [bigFromB64url(jwk['p']), bigFromB64url(jwk['q'])]],
        [
          'Precomputed',
          RegoObject.fromEntries([
            ['Dp', bigFromB64url(jwk['dp'])],
            ['Dq', bigFromB64url(jwk['dq'])],
            ['Qinv', bigFromB64url(jwk['qi'])],
            ['CRTValues', []],
          ]),
        ],
      ]);
    case 'ec':
      return RegoObject.fromEntries([
        ['Curve', new RegoObject()],
        ['X', bigFromB64url(jwk['x'])],
        ['Y', bigFromB64url(jwk['y'])],
        ['D', bigFromB64url(jwk['d'])],
      ]);
    case 'ed25519':
      return Buffer.concat([Buffer.from(jwk['d'] ?? '', 'base64url'), Buffer.from(jwk['x'] ?? '', 'base64url')]).toString('base64');
    default:
      return null;
  }
}

function privateKeyFromBlock(b: PemBlock): KeyObject | undefined {
  const type = b.type === 'RSA PRIVATE KEY' ? 'pkcs1' : b.type === 'EC PRIVATE KEY' ? 'sec1' : b.type === 'PRIVATE KEY' ? 'pkcs8' : undefined;
  if (type === undefined) return undefined;
  try {
    return createPrivateKey({ key: b.bytes, format: 'der', type });
  } catch {
    return undefined;
  }
}

/** PEM text, or base64 of PEM text. */
function pemText(s: string): string {
  if (startsWithPem(s)) return s;
  return stdBase64(s).toString('latin1');
}

function keypair(certArg: string, keyArg: string): Value {
  const certPem = pemText(certArg);
  const keyPem = pemText(keyArg);
  const certs = pemBlocks(certPem).filter((b) => b.type === 'CERTIFICATE');
  if (certs.length === 0) throw new BuiltinError('x509: malformed certificate');
  const keyBlock = pemBlocks(keyPem).find((b) => b.type === 'PRIVATE KEY' || b.type.endsWith(' PRIVATE KEY'));
  const key = keyBlock === undefined ? undefined : privateKeyFromBlock(keyBlock);
  if (key === undefined) throw new BuiltinError('tls: failed to parse private key');
  const leaf = x509Of(certs[0]?.bytes as Buffer);
  if (!leaf.checkPrivateKey(key)) throw new BuiltinError('tls: private key does not match public key');
  const [leafJSON] = certsJSON([certs[0]?.bytes as Buffer]);
  // Leaf is Go's plain x509.Certificate: without OPA's URIStrings.
  leafJSON?.delete('URIStrings');
  return RegoObject.fromEntries([
    ['Certificate', certs.map((c) => c.bytes.toString('base64'))],
    ['PrivateKey', goPrivateKey(key)],
    ['SupportedSignatureAlgorithms', null],
    ['OCSPStaple', null],
    ['SignedCertificateTimestamps', null],
    ['Leaf', leafJSON ?? null],
  ]);
}

export const x509Builtins: BuiltinDefinition[] = [
  {
    name: 'crypto.x509.parse_certificates',
    args: ['string'],
    result: 'array',
    impl: ([s]) => certsJSON(certDERs(asString(s, 1))),
  },
  {
    name: 'crypto.x509.parse_and_verify_certificates',
    args: ['string'],
    result: 'array',
    impl: ([s], ctx) => parseAndVerify(asString(s, 1), { now: Number(ctx.timeNs / 1_000_000n), keyUsages: [] }),
  },
  {
    name: 'crypto.x509.parse_and_verify_certificates_with_options',
    args: ['string', 'object'],
    result: 'array',
    impl: ([s, o], ctx) => {
      const input = asString(s, 1);
      return parseAndVerify(input, verifyOptions(asObject(o, 2), ctx.timeNs));
    },
  },
  {
    name: 'crypto.x509.parse_certificate_request',
    args: ['string'],
    result: 'object',
    impl: ([s]) => {
      const input = asString(s, 1);
      let bytes = input.startsWith('-----BEGIN CERTIFICATE REQUEST') ? Buffer.from(input, 'latin1') : stdBase64(input);
      const [block] = pemBlocks(bytes.toString('latin1'));
      if (block !== undefined && block.type !== 'CERTIFICATE REQUEST') throw new BuiltinError('invalid PEM-encoded certificate signing request');
      if (block !== undefined) bytes = block.bytes;
      if (bytes.length === 0) throw new BuiltinError('asn1: syntax error: sequence truncated');
      try {
        return certificateRequestJSON(bytes);
      } catch (e) {
        if (e instanceof DerError || e instanceof TypeError) throw new BuiltinError(`asn1: structure error: ${e.message}`);
        throw e;
      }
    },
  },
  {
    name: 'crypto.x509.parse_keypair',
    args: ['string', 'string'],
    result: 'object',
    impl: ([c, k]) => keypair(asString(c, 1), asString(k, 2)),
  },
  {
    name: 'crypto.x509.parse_rsa_private_key',
    args: ['string'],
    result: 'object',
    impl: ([s]) => {
      const [block] = pemBlocks(pemText(asString(s, 1)));
      const key = block === undefined ? undefined : privateKeyFromBlock(block);
      if (key === undefined) return null;
      // OPA returns the JWK of whatever private key the PEM holds.
      const jwk = key.export({ format: 'jwk' }) as Record<string, string>;
      return RegoObject.fromEntries(Object.entries(jwk).map(([k, v]): [string, Value] => [k, v]));
    },
  },
  {
    name: 'crypto.parse_private_keys',
    args: ['string'],
    result: 'array',
    impl: ([s]) => {
      if (typeof s !== 'string') throw operandTypeError(1, s ?? null, 'string');
      if (s === '') return null;
      let text: string;
      try {
        text = pemText(s);
      } catch {
        return [];
      }
      const out: Value[] = [];
      for (const b of pemBlocks(text)) {
        const key = privateKeyFromBlock(b);
        if (key !== undefined) out.push(goPrivateKey(key));
      }
      return out;
    },
  },
];
