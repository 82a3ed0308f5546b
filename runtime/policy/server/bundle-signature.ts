/**
 * Signed bundles as OPA verifies them (`bundle/verify.go`): `.signatures.json`
 * holds exactly one JWT whose payload lists every file of the bundle with
 * its digest; the JWT is checked with the configured key and algorithm
 * only (the token's own `alg` header cannot pick another: no `none`, no HS
 * token checked with an RSA key's text as its secret), its `scope` must be
 * the configured one, and every file must be listed with a matching digest
 * and every listed file present. Any mismatch refuses the whole bundle.
 */
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { unmarshalYaml } from '../builtins/yaml.js';
import { foldDeep, MAX_JSON_DEPTH } from '../deep-fold.js';
import { stringifyJSON } from '../value-json.js';
import type { BundleEntry } from './bundle-archive.js';
import { SIGNING_ALGORITHMS } from './signing-algorithms.js';

/** `--verification-key`, `--verification-key-id`, `--signing-alg`, `--scope`, `--exclude-files-verify` of `opa run`. */
export interface BundleVerification {
  /** The HMAC secret, or a PEM public key (or certificate), or the path of a file holding either (as OPA reads the flag). */
  key: string;
  /** The key's id (OPA's default `default`): the JWT's `kid` is used only when this is empty. */
  keyId?: string;
  /** OPA's default RS256. */
  algorithm?: string;
  scope?: string;
  /** Glob patterns (Go's `filepath.Match`) of files left out of verification. */
  excludeFiles?: readonly string[];
}

const HASHES: Record<string, string> = {
  MD5: 'md5',
  'SHA-1': 'sha1',
  'SHA-224': 'sha224',
  'SHA-256': 'sha256',
  'SHA-384': 'sha384',
  'SHA-512': 'sha512',
  'SHA-512-224': 'sha512-224',
  'SHA-512-256': 'sha512-256',
};

/** A bundle whose signature does not hold: the message says what did not match. */
export class BundleSignatureError extends Error {
  override readonly name = 'BundleSignatureError';
}

/** The key material a verification uses, read once (the flag may name a file). */
export interface VerificationKey {
  algorithm: string;
  keyId: string;
  scope: string;
  excludeFiles: readonly RegExp[];
  key: Uint8Array | KeyObject;
}

/** Reads and checks the key at start, so a wrong key or algorithm is a start-up error rather than every bundle refused. */
export function verificationKey(options: BundleVerification): VerificationKey {
  const algorithm = options.algorithm ?? 'RS256';
  if (!(SIGNING_ALGORITHMS as readonly string[]).includes(algorithm)) {
    throw new BundleSignatureError(`unknown signature algorithm: ${algorithm} (one of ${SIGNING_ALGORITHMS.join(', ')})`);
  }
  const text = existsSync(options.key) ? readFileSync(options.key, 'utf8') : options.key;
  const pem = /-----BEGIN [A-Z0-9 ]+-----/.test(text);
  let key: Uint8Array | KeyObject;
  if (algorithm.startsWith('HS')) {
    // OPA would take a PEM key's text as the secret; whoever holds the public key could then sign. Refused.
    if (pem) throw new BundleSignatureError(`--signing-alg ${algorithm} takes a shared secret, but the verification key is a PEM key`);
    if (text.length === 0) throw new BundleSignatureError('the verification key is empty');
    key = new TextEncoder().encode(text);
  } else {
    if (!pem) throw new BundleSignatureError(`--signing-alg ${algorithm} needs a PEM public key (or the path of a file holding one)`);
    try {
      key = createPublicKey(text);
    } catch (error) {
      throw new BundleSignatureError(`the verification key is not a usable PEM public key: ${(error as Error).message}`);
    }
    const type = key.asymmetricKeyType;
    if ((algorithm.startsWith('ES') && type !== 'ec') || (!algorithm.startsWith('ES') && type !== 'rsa' && type !== 'rsa-pss')) {
      throw new BundleSignatureError(`--signing-alg ${algorithm} does not fit the verification key (a ${type ?? 'unknown'} key)`);
    }
  }
  return {
    algorithm,
    keyId: options.keyId ?? 'default',
    scope: options.scope ?? '',
    excludeFiles: (options.excludeFiles ?? []).map(globPattern),
    key,
  };
}

interface SignedFile {
  name: string;
  hash: string;
  algorithm: string;
}

/**
 * Verifies a bundle's files against its `.signatures.json` (given as the
 * entry, or undefined when the bundle has none). Throws
 * `BundleSignatureError` on any mismatch, with OPA's message where OPA has one.
 */
export async function verifyBundle(entries: readonly BundleEntry[], signatures: BundleEntry | undefined, key: VerificationKey): Promise<void> {
  if (signatures === undefined) throw new BundleSignatureError('bundle missing .signatures.json file');
  let config: unknown;
  try {
    config = JSON.parse(signatures.bytes.toString('utf8'));
  } catch (error) {
    throw new BundleSignatureError(`bundle load failed on signatures decode: ${(error as Error).message}`);
  }
  const tokens = (config as { signatures?: unknown } | null)?.signatures;
  if (!Array.isArray(tokens) || tokens.length === 0) throw new BundleSignatureError('.signatures.json: missing JWT (expected exactly one)');
  if (tokens.length > 1) throw new BundleSignatureError('.signatures.json: multiple JWTs not supported (expected exactly one)');
  const token = tokens[0];
  if (typeof token !== 'string') throw new BundleSignatureError('.signatures.json: the JWT is not a string');
  const files = await verifiedFiles(token, key);
  for (const entry of entries) {
    if (key.excludeFiles.some((pattern) => pattern.test(entry.path))) {
      files.delete(entry.path);
      continue;
    }
    const signed = files.get(entry.path);
    if (signed === undefined) throw new BundleSignatureError(`file ${entry.path} not included in bundle signature`);
    if (signed.algorithm === '') throw new BundleSignatureError(`no hashing algorithm provided for file ${entry.path}`);
    const hash = HASHES[signed.algorithm];
    if (hash === undefined) throw new BundleSignatureError(`unsupported hashing algorithm: ${signed.algorithm}`);
    const got = createHash(hash).update(hashedContent(entry)).digest('hex');
    if (!/^([0-9a-fA-F]{2})*$/.test(signed.hash)) throw new BundleSignatureError(`file ${entry.path}: the signed hash is not hexadecimal`);
    if (signed.hash.toLowerCase() !== got) throw new BundleSignatureError(`${entry.path}: digest mismatch (want: ${signed.hash.toLowerCase()}, got: ${got})`);
    files.delete(entry.path);
  }
  if (files.size > 0) {
    throw new BundleSignatureError(`file(s) [${[...files.keys()].sort().join(' ')}] specified in bundle signatures but not found in the target bundle`);
  }
}

/** The JWT checked with the configured key and algorithm, and its payload's files by name. */
async function verifiedFiles(token: string, key: VerificationKey): Promise<Map<string, SignedFile>> {
  const parts = token.split('.');
  if (parts.length !== 3) throw new BundleSignatureError('failed to parse the bundle signature: a JWT has three parts');
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(parts[0] as string, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new BundleSignatureError(`failed to parse JWT headers: ${(error as Error).message}`);
  }
  const { compactVerify, errors } = await import('jose');
  let payloadBytes: Uint8Array;
  try {
    // Only the configured algorithm: the header's `alg` (none, or HS256 against an RSA key) cannot choose.
    ({ payload: payloadBytes } = await compactVerify(token, key.key, { algorithms: [key.algorithm] }));
  } catch (error) {
    const reason =
      error instanceof errors.JOSEAlgNotAllowed ? `the JWT is signed with ${JSON.stringify(header.alg)}, not ${key.algorithm}` : (error as Error).message;
    throw new BundleSignatureError(`failed to verify the bundle signature: ${reason}`);
  }
  let payload: { keyid?: unknown; scope?: unknown; files?: unknown };
  try {
    payload = JSON.parse(Buffer.from(payloadBytes).toString('utf8')) as typeof payload;
  } catch (error) {
    throw new BundleSignatureError(`the bundle signature's payload is not JSON: ${(error as Error).message}`);
  }
  // As OPA: the configured key id first, then the token's `kid`, then its payload's `keyid`; the key must be the one configured.
  const keyId = key.keyId || (typeof header.kid === 'string' ? header.kid : '') || (typeof payload.keyid === 'string' ? payload.keyid : '');
  if (keyId === '') throw new BundleSignatureError('verification key ID is empty');
  if (keyId !== key.keyId) throw new BundleSignatureError(`verification key corresponding to ID ${keyId} not found`);
  if ((typeof payload.scope === 'string' ? payload.scope : '') !== key.scope) throw new BundleSignatureError('scope mismatch');
  const files = new Map<string, SignedFile>();
  for (const file of Array.isArray(payload.files) ? (payload.files as unknown[]) : []) {
    const f = file as Partial<Record<keyof SignedFile, unknown>> | null;
    if (f === null || typeof f !== 'object' || typeof f.name !== 'string')
      throw new BundleSignatureError("the bundle signature's payload lists a file without a name");
    files.set(f.name, { name: f.name, hash: typeof f.hash === 'string' ? f.hash : '', algorithm: typeof f.algorithm === 'string' ? f.algorithm : '' });
  }
  return files;
}

/** The bytes OPA hashes for a file: structured documents (data.json, data.yaml, .manifest) in canonical JSON, others as they are. */
function hashedContent(entry: BundleEntry): Buffer {
  const base = entry.path.slice(entry.path.lastIndexOf('/') + 1);
  if (base === 'data.json' || base === '.manifest' || base === 'signatures.json') return Buffer.from(canonicalJson(entry.bytes.toString('utf8'), entry.path));
  if (base === 'data.yaml') {
    let json: string;
    try {
      json = stringifyJSON(unmarshalYaml(entry.bytes.toString('utf8')));
    } catch (error) {
      throw new BundleSignatureError(`${entry.path}: ${(error as Error).message}`);
    }
    return Buffer.from(canonicalJson(json, entry.path));
  }
  return entry.bytes;
}

/** A JSON value with number literals kept as written (Go's json.Number). */
type Canonical =
  | { kind: 'object'; entries: Map<string, Canonical> }
  | { kind: 'array'; items: Canonical[] }
  | { kind: 'string'; value: string }
  | { kind: 'literal'; text: string };

// Sticky: matched where the reader stands, without copying the rest of the text.
const LITERAL = /true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

/**
 * OPA's digest input for a structured file (`bundle/hash.go`): objects with
 * their keys in byte order, no whitespace, numbers as written, strings as
 * Go's encoder writes them without HTML escaping.
 */
export function canonicalJson(text: string, file: string): string {
  let i = 0;
  const fail = (what: string): never => {
    throw new BundleSignatureError(`${file}: not JSON (${what} at offset ${i})`);
  };
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i] as string)) i++;
  };
  const scalar = (): Canonical => {
    if (text[i] === '"') return { kind: 'string', value: string() };
    LITERAL.lastIndex = i;
    const literal = LITERAL.exec(text);
    if (!literal) return fail('unexpected character');
    i += literal[0].length;
    return { kind: 'literal', text: literal[0] };
  };
  const key = (): string => {
    ws();
    if (text[i] !== '"') fail('expected a key');
    const k = string();
    ws();
    if (text[i++] !== ':') fail("expected ':'");
    return k;
  };
  /** One value, read on an explicit stack of the arrays and objects open around it (as deep as OPA reads JSON). */
  const value = (): Canonical => {
    const open: Array<Extract<Canonical, { kind: 'object' | 'array' }>> = [];
    const keys: string[] = [];
    for (;;) {
      ws();
      const ch = text[i];
      let v: Canonical;
      if (ch === '{' || ch === '[') {
        if (open.length >= MAX_JSON_DEPTH) fail('nested too deep');
        i++;
        ws();
        const container: Canonical = ch === '{' ? { kind: 'object', entries: new Map() } : { kind: 'array', items: [] };
        if (text[i] === (ch === '{' ? '}' : ']')) {
          i++;
          v = container;
        } else {
          open.push(container);
          keys.push(ch === '{' ? key() : '');
          continue;
        }
      } else v = scalar();
      for (;;) {
        const top = open.length - 1;
        if (top < 0) return v;
        const into = open[top] as Extract<Canonical, { kind: 'object' | 'array' }>;
        if (into.kind === 'array') into.items.push(v);
        else into.entries.set(keys[top] as string, v);
        ws();
        const next = text[i++];
        if (next === ',') {
          if (into.kind === 'object') keys[top] = key();
          break;
        }
        if (next !== (into.kind === 'array' ? ']' : '}')) fail(into.kind === 'array' ? "expected ',' or ']'" : "expected ',' or '}'");
        open.pop();
        keys.pop();
        v = into;
      }
    }
  };
  const string = (): string => {
    STRING.lastIndex = i;
    const match = STRING.exec(text);
    if (!match) return fail('malformed string');
    i += match[0].length;
    return JSON.parse(match[0]) as string;
  };
  const root = value();
  ws();
  if (i !== text.length) fail('trailing characters');
  return emit(root);
}

/** The canonical text of a node, folded on an explicit stack. */
function emit(root: Canonical): string {
  const sortedKeys = (entries: Map<string, Canonical>): string[] =>
    [...entries.keys()].sort((a, b) => Buffer.compare(Buffer.from(goString(a)), Buffer.from(goString(b))));
  return foldDeep<Canonical, string>(root, {
    open: (node) =>
      node.kind === 'array' ? node.items : node.kind === 'object' ? sortedKeys(node.entries).map((k) => node.entries.get(k) as Canonical) : undefined,
    leaf: (node) => (node.kind === 'literal' ? node.text : node.kind === 'string' ? goQuote(node.value) : ''),
    close: (node, _parts, texts) => {
      if (node.kind === 'array') return `[${texts.join(',')}]`;
      const keys = sortedKeys((node as Extract<Canonical, { kind: 'object' }>).entries);
      return `{${keys.map((k, n) => `${goQuote(k)}:${texts[n] as string}`).join(',')}}`;
    },
  });
}

/** A string as Go's decoder leaves it: a lone surrogate (invalid UTF-16) becomes U+FFFD. */
function goString(s: string): string {
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** Go's encoding/json string form with HTML escaping off (Go 1.22+: `\b` and `\f` short forms). */
function goQuote(raw: string): string {
  let out = '"';
  for (const ch of goString(raw)) {
    const c = ch.codePointAt(0) as number;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (c < 0x20 || c === 0x2028 || c === 0x2029) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Go's `filepath.Match` pattern as a regular expression over a whole `/`-separated path. */
function globPattern(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === '*') out += '[^/]*';
    else if (ch === '?') out += '[^/]';
    else if (ch === '\\' && i + 1 < pattern.length) out += escapeRegExp(pattern[++i] as string);
    else if (ch === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end === -1) throw new BundleSignatureError(`--exclude-files-verify ${JSON.stringify(pattern)} is not a valid pattern`);
      let body = pattern.slice(i + 1, end);
      const negated = body.startsWith('^');
      if (negated) body = body.slice(1);
      out += `[${negated ? '^/' : ''}${body.replace(/[\]\\]/g, '\\$&')}]`;
      i = end;
    } else out += escapeRegExp(ch);
  }
  return new RegExp(`^${out}$`, 'u');
}

function escapeRegExp(ch: string): string {
  return ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
