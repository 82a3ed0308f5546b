/**
 * JSON Web Token builtins: io.jwt.decode, io.jwt.decode_verify,
 * io.jwt.verify_{rs,ps,es,hs}{256,384,512}, io.jwt.verify_eddsa,
 * io.jwt.encode_sign and io.jwt.encode_sign_raw, following OPA's
 * topdown/tokens.go (JWS compact serialization only; JWE is refused).
 */
import { parseNumberText } from '../value-json.js';
import { compare, isNumber, RegoObject, type Value } from '../value.js';
import { goJSON } from '../value-gojson.js';
import { unmarshalJSON } from './json.js';
import {
  JWT_ALGORITHMS,
  KeyError,
  keysFromCertOrJwk,
  publicOf,
  publicOnly,
  signingKeyFromJwk,
  signJws,
  verifySignature,
  type VerificationKey,
} from './jwt-keys.js';
import { asObject, asString, type BuiltinContext, type BuiltinDefinition, BuiltinError } from './registry.js';
import { stringFromBytes, validUTF8 } from '../go-bytes.js';

// ---------------------------------------------------------------- encoding

const URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const DECODE = new Map([...URL_ALPHABET].map((c, i) => [c, i]));

/** Go's base64.URLEncoding.DecodeString (padded, newlines ignored, trailing bits ignored). */
function goBase64UrlDecode(src: string): Buffer {
  const out: number[] = [];
  const corrupt = (at: number): BuiltinError => new BuiltinError(`illegal base64 data at input byte ${at}`);
  const nl = (c: string | undefined): boolean => c === '\n' || c === '\r';
  let si = 0;
  for (;;) {
    const buf = [0, 0, 0, 0];
    let dlen = 4;
    let j = 0;
    let end = false;
    for (; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return Buffer.from(out);
        throw corrupt(si - j);
      }
      const c = src[si++] as string;
      const v = DECODE.get(c);
      if (v !== undefined) {
        buf[j] = v;
        continue;
      }
      if (nl(c)) {
        j--;
        continue;
      }
      if (c !== '=') throw corrupt(si - 1);
      if (j < 2) throw corrupt(si - 1);
      if (j === 2) {
        while (si < src.length && nl(src[si])) si++;
        if (si === src.length) throw corrupt(src.length);
        if (src[si] !== '=') throw corrupt(si - 1);
        si++;
      }
      while (si < src.length && nl(src[si])) si++;
      if (si < src.length) throw corrupt(si);
      dlen = j;
      end = true;
      break;
    }
    const [a, b, c, d] = buf as [number, number, number, number];
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    if (dlen >= 2) out.push((n >> 16) & 0xff);
    if (dlen >= 3) out.push((n >> 8) & 0xff);
    if (dlen >= 4) out.push(n & 0xff);
    if (end) return Buffer.from(out);
  }
}

/** OPA's base64url.decode: unpadded input is padded first (RFC 7515 appendix C). */
function base64UrlDecode(s: string): Buffer {
  let padded = s;
  if (!s.endsWith('=')) {
    const rem = Buffer.byteLength(s) % 4;
    if (rem === 1) throw new BuiltinError(`illegal base64url string: ${s}`);
    if (rem === 2) padded += '==';
    if (rem === 3) padded += '=';
  }
  return goBase64UrlDecode(padded);
}

/** A JSON object (Go's json.Unmarshal via OPA's json.unmarshal). */
function extractJSONObject(text: string): RegoObject {
  let v: Value;
  try {
    v = unmarshalJSON(text);
  } catch (e) {
    throw new BuiltinError(`invalid JSON: ${(e as Error).message}`);
  }
  if (!(v instanceof RegoObject)) throw new BuiltinError('decoded JSON type was not an Object');
  return v;
}

// ---------------------------------------------------------------- tokens

interface Token {
  header: string;
  payload: string;
  signature: string;
}

function splitToken(v: Value | undefined): Token {
  const s = asString(v, 1);
  if (!s.includes('.')) throw new BuiltinError('encoded JWT had no period separators');
  const parts = s.split('.');
  if (parts.length !== 3) throw new BuiltinError(`encoded JWT must have 3 sections, found ${parts.length}`);
  return { header: parts[0] as string, payload: parts[1] as string, signature: parts[2] as string };
}

/** Decoded bytes as JSON text Go's decoder reads: each byte that is not UTF-8 is U+FFFD. */
const jsonText = (bytes: Uint8Array): string => validUTF8(stringFromBytes(bytes));

function decodeHeader(t: Token): RegoObject {
  let text: string;
  try {
    text = jsonText(base64UrlDecode(t.header));
  } catch (e) {
    throw new BuiltinError(`JWT header had invalid encoding: ${(e as Error).message}`);
  }
  let header: RegoObject;
  try {
    header = extractJSONObject(text);
  } catch (e) {
    throw new BuiltinError(`bad JWT header: ${(e as Error).message}`);
  }
  if (header.has('enc')) throw new BuiltinError('JWT is a JWE object, which is not supported');
  return header;
}

function decodePayloadText(t: Token): string {
  try {
    return jsonText(base64UrlDecode(t.payload));
  } catch (e) {
    throw new BuiltinError(`JWT payload had invalid encoding: ${(e as Error).message}`);
  }
}

function decodeSignature(t: Token): Buffer {
  return base64UrlDecode(t.signature);
}

interface ParsedHeader {
  alg: string;
  kid: string;
  cty: string;
  crit: Set<string>;
  unknown: string[];
}

function parseHeader(h: RegoObject): ParsedHeader {
  const out: ParsedHeader = { alg: '', kid: '', cty: '', crit: new Set(), unknown: [] };
  for (const [k, v] of h.entries()) {
    const name = String(k);
    switch (name) {
      case 'alg':
      case 'kid':
      case 'typ':
      case 'cty':
        if (typeof v !== 'string') throw new BuiltinError(`${name}: must be a string`);
        if (name !== 'typ') out[name] = v;
        break;
      case 'crit':
        if (!Array.isArray(v)) throw new BuiltinError('crit: must be a list');
        for (const x of v) if (typeof x === 'string') out.crit.add(x);
        if (out.crit.size === 0) throw new BuiltinError('crit: must be a nonempty list');
        break;
      default:
        out.unknown.push(name);
    }
  }
  return out;
}

function headerValid(h: ParsedHeader): boolean {
  return h.alg !== '' && !h.unknown.some((u) => h.crit.has(u));
}

function keysOrThrow(text: string): VerificationKey[] {
  try {
    return keysFromCertOrJwk(text);
  } catch (e) {
    if (e instanceof KeyError) throw new BuiltinError(e.message);
    throw e;
  }
}

// ---------------------------------------------------------------- builtins

function decode(v: Value | undefined, ctx: BuiltinContext): Value {
  const t = splitToken(v);
  const header = decodeHeader(t);
  const payloadText = decodePayloadText(t);
  const cty = header.get('cty');
  if (cty === 'JWT') return decode(payloadText.replace(/^["']+|["']+$/g, ''), ctx);
  const payload = extractJSONObject(payloadText);
  let sig: Buffer;
  try {
    sig = decodeSignature(t);
  } catch (e) {
    throw new BuiltinError(`JWT signature had invalid encoding: ${(e as Error).message}`);
  }
  return [header, payload, sig.toString('hex')];
}

/** verify_rs256 & co: true when some key verifies the signature (OPA's builtinJWTVerify). */
function verifyWithKeys(alg: string, jwt: Value | undefined, keyText: Value | undefined): boolean {
  const t = splitToken(jwt);
  const keys = keysOrThrow(asString(keyText, 2));
  const sig = decodeSignature(t);
  const header = parseHeader(decodeHeader(t));
  const data = Buffer.from(`${t.header}.${t.payload}`);
  const check = (k: VerificationKey): boolean => {
    const key = publicOnly(k);
    return key !== undefined && verifySignature(alg, key, data, sig);
  };
  if (header.kid !== '') {
    const byKid = keys.find((k) => k.kid === header.kid);
    if (byKid !== undefined) return check(byKid);
  }
  return keys.some((k) => (k.alg === '' || k.alg === header.alg) && check(k));
}

function verifyHmac(alg: string, jwt: Value | undefined, secret: Value | undefined): boolean {
  const token = asString(jwt, 1);
  const key = Buffer.from(asString(secret, 2));
  const t = splitToken(token);
  return verifySignature(alg, key, Buffer.from(`${t.header}.${t.payload}`), decodeSignature(t));
}

interface Constraints {
  secret: string;
  alg: string;
  iss: string;
  aud: string;
  keys: VerificationKey[] | undefined;
  time: number;
}

function timeValue(v: Value): number {
  if (!isNumber(v)) throw new BuiltinError('token time constraint: must be a number');
  const t = typeof v === 'object' ? v.toNumber() : Number(v);
  if (t < 0) throw new BuiltinError('token time constraint: must not be negative');
  return t;
}

function parseConstraints(o: RegoObject, ctx: BuiltinContext): Constraints {
  const c: Constraints = { secret: '', alg: '', iss: '', aud: '', keys: undefined, time: -1 };
  for (const [k, v] of o.entries()) {
    const name = String(k);
    switch (name) {
      case 'cert':
        if (typeof v !== 'string') throw new BuiltinError('cert constraint: must be a string');
        c.keys = keysOrThrow(v);
        break;
      case 'secret':
      case 'alg':
      case 'iss':
      case 'aud':
        if (typeof v !== 'string') throw new BuiltinError(`${name} constraint: must be a string`);
        c[name] = v;
        break;
      case 'time':
        c.time = timeValue(v);
        break;
      default:
        throw new BuiltinError(`unknown token validation constraint: ${name}`);
    }
  }
  if (c.time === -1) c.time = Number(ctx.timeNs);
  const keyKinds = (c.keys !== undefined ? 1 : 0) + (c.secret !== '' ? 1 : 0);
  if (keyKinds > 1) throw new BuiltinError('duplicate key constraints');
  if (keyKinds < 1) throw new BuiltinError('no key constraint');
  return c;
}

function signatureVerified(c: Constraints, h: ParsedHeader, t: Token, sig: Buffer): boolean {
  const data = Buffer.from(`${t.header}.${t.payload}`);
  if (c.keys !== undefined) {
    if (h.kid !== '') {
      const byKid = c.keys.find((k) => k.kid === h.kid);
      if (byKid !== undefined) return verifySignature(h.alg, publicOf(byKid), data, sig);
    }
    return c.keys.some((k) => (k.alg === '' || k.alg === h.alg) && verifySignature(h.alg, publicOf(k), data, sig));
  }
  return verifySignature(h.alg, Buffer.from(c.secret), data, sig);
}

/** Seconds as a Rego number, from a float64 (Go's FormatFloat 'g' -1). */
function secondsValue(ns: number): Value {
  return parseNumberText(String(ns / 1e9));
}

function decodeVerify(jwt: Value | undefined, constraints: Value | undefined, ctx: BuiltinContext): Value {
  const unverified: Value = [false, new RegoObject(), new RegoObject()];
  const c = parseConstraints(asObject(constraints, 2), ctx);
  let current: Value | undefined = jwt;
  let header: RegoObject;
  let payloadText: string;
  for (;;) {
    const t = splitToken(current);
    header = decodeHeader(t);
    const h = parseHeader(header);
    if (!headerValid(h)) return unverified;
    if (c.alg !== '' && c.alg !== h.alg) return unverified;
    const sig = decodeSignature(t);
    if (!signatureVerified(c, h, t, sig)) return unverified;
    payloadText = decodePayloadText(t);
    if (h.cty.toUpperCase() === 'JWT') {
      current = payloadText;
      continue;
    }
    break;
  }
  const payload = extractJSONObject(payloadText);
  if (c.iss !== '') {
    if (payload.get('iss') !== c.iss) return unverified;
  }
  const aud = payload.get('aud');
  if (aud !== undefined) {
    const ok = typeof aud === 'string' ? aud === c.aud : Array.isArray(aud) && aud.some((x) => x === c.aud);
    if (!ok) return unverified;
  } else if (c.aud !== '') return unverified;
  const now = secondsValue(c.time);
  const exp = payload.get('exp');
  if (exp !== undefined) {
    if (!isNumber(exp)) throw new BuiltinError('exp value must be a number');
    if (compare(now, exp) !== -1) return unverified;
  }
  const nbf = payload.get('nbf');
  if (nbf !== undefined) {
    if (!isNumber(nbf)) throw new BuiltinError('nbf value must be a number');
    if (compare(now, nbf) === -1) return unverified;
  }
  return [true, header, payload];
}

function isValidJSON(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The protected header as OPA's JWS library reads it (fastjson): empty text
 * and malformed JSON are errors, but a bare token of number characters (`e`,
 * `1e`, `-`) or `inf`/`nan` parses as a number, which has no `alg`.
 */
function parseHeaderJSON(text: string): unknown {
  if (text.trim() === '') throw new BuiltinError(`missing or invalid 'alg' header: cannot parse JSON: cannot parse empty string`);
  try {
    return JSON.parse(text);
  } catch {
    const t = text.trim();
    if (/^[0-9.eE+-]+$/.test(t) || /^[+-]?(inf|nan)$/i.test(t)) return null;
    throw new BuiltinError(`missing or invalid 'alg' header: cannot parse JSON`);
  }
}

function encodeSign(headerText: string, payloadText: string, jwkText: string): string {
  let key;
  try {
    key = signingKeyFromJwk(jwkText);
  } catch (e) {
    if (e instanceof KeyError) throw new BuiltinError(e.message);
    throw e;
  }
  const headers = parseHeaderJSON(headerText);
  const h = typeof headers === 'object' && headers !== null && !Array.isArray(headers) ? (headers as Record<string, unknown>) : {};
  const alg = h['alg'];
  if (typeof alg !== 'string') throw new BuiltinError(`missing or invalid 'alg' header: jwsbb: header "alg" not found`);
  if (!JWT_ALGORITHMS.has(alg)) throw new BuiltinError(`unknown JWS algorithm: ${alg}`);
  const typ = h['typ'];
  if ((typeof typ !== 'string' || typ === 'JWT') && !isValidJSON(payloadText)) throw new BuiltinError('type is JWT but payload is not JSON');
  const signingInput = `${Buffer.from(headerText).toString('base64url')}.${Buffer.from(payloadText).toString('base64url')}`;
  let sig: Buffer;
  try {
    sig = signJws(alg, key, Buffer.from(signingInput));
  } catch (e) {
    if (e instanceof KeyError) throw new BuiltinError(e.message);
    throw e;
  }
  return `${signingInput}.${sig.toString('base64url')}`;
}

function verifier(name: string, alg: string): BuiltinDefinition {
  return {
    name,
    args: ['string', 'string'],
    result: 'boolean',
    impl: ([jwt, key]) => (alg.startsWith('HS') ? verifyHmac(alg, jwt, key) : verifyWithKeys(alg, jwt, key)),
  };
}

export const jwtBuiltins: BuiltinDefinition[] = [
  { name: 'io.jwt.decode', args: ['string'], result: 'array', impl: ([t], ctx) => decode(t, ctx) },
  { name: 'io.jwt.decode_verify', args: ['string', 'object'], result: 'array', nondeterministic: true, impl: ([t, c], ctx) => decodeVerify(t, c, ctx) },
  ...['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'HS256', 'HS384', 'HS512'].map((alg) =>
    verifier(`io.jwt.verify_${alg.toLowerCase()}`, alg),
  ),
  verifier('io.jwt.verify_eddsa', 'EdDSA'),
  {
    name: 'io.jwt.encode_sign',
    args: ['object', 'object', 'object'],
    result: 'string',
    nondeterministic: true,
    impl: ([h, p, k]) => encodeSign(goJSON(asObject(h, 1)), goJSON(asObject(p, 2)), goJSON(asObject(k, 3))),
  },
  {
    name: 'io.jwt.encode_sign_raw',
    args: ['string', 'string', 'string'],
    result: 'string',
    nondeterministic: true,
    impl: ([h, p, k]) => {
      const jwk = asString(k, 3);
      return encodeSign(asString(h, 1), asString(p, 2), jwk);
    },
  },
];
