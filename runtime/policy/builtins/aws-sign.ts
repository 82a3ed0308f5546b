/**
 * providers.aws.sign_req(request, aws_config, time_ns): signs an http.send
 * request object with AWS Signature Version 4 (node:crypto HMAC-SHA256), as
 * OPA does: the payload is `raw_body`, else the JSON of `body`, else empty
 * (or `UNSIGNED-PAYLOAD` with `disable_payload_signing`); every request
 * header but authorization/user-agent/x-amzn-trace-id is signed, plus host,
 * x-amz-date, x-amz-content-sha256 (S3 and Glacier only) and
 * x-amz-security-token (with a session token). Method, path and query are
 * signed as written (Go's EscapedPath and RawQuery). Returns the request
 * with those headers and `Authorization` added.
 */
import { createHash, createHmac } from 'node:crypto';
import { isNumber, RegoObject, RegoSet, type Value } from '../value.js';
import { formatValue } from '../value-format.js';
import { asObject, type BuiltinDefinition, BuiltinError } from './registry.js';
import { goJSON } from '../value-gojson.js';

const REQ_KEYS = ['method', 'url'];
const CONFIG_KEYS = ['aws_access_key', 'aws_secret_access_key', 'aws_service', 'aws_region'];
const IGNORED = new Set(['authorization', 'user-agent', 'x-amzn-trace-id']);

function requireStrings(o: RegoObject, keys: string[], pos: number, what: string): Record<string, string> {
  const missing = keys.filter((k) => !o.has(k));
  if (missing.length > 0) throw BuiltinError.type(`operand ${pos} missing required ${what} parameters(s): ${formatValue(RegoSet.of(missing))}`);
  const invalid = keys.filter((k) => typeof o.get(k) !== 'string');
  if (invalid.length > 0) throw BuiltinError.type(`operand ${pos} invalid values for required ${what} parameters(s): ${formatValue(RegoSet.of(invalid))}`);
  return Object.fromEntries(keys.map((k) => [k, o.get(k) as string]));
}

const sha256 = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');
const hmac = (key: string | Buffer, s: string): Buffer => createHmac('sha256', key).update(s).digest();

function amzDate(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

function signReq(reqArg: Value | undefined, configArg: Value | undefined, timeArg: Value | undefined): Value {
  const req = asObject(reqArg, 1);
  const { method, url } = requireStrings(req, REQ_KEYS, 1, 'request') as { method: string; url: string };
  const config = asObject(configArg, 2);
  const cfg = requireStrings(config, CONFIG_KEYS, 2, 'AWS config');
  const token = config.get('aws_session_token');
  const disable = config.get('disable_payload_signing');
  if (disable !== undefined && typeof disable !== 'boolean') throw BuiltinError.type(`operand 2 invalid value for 'disable_payload_signing' in AWS config`);
  if (!isNumber(timeArg)) throw BuiltinError.type('operand 3 must be number but got ' + formatValue(timeArg ?? null));
  const ns = typeof timeArg === 'object' ? timeArg.toNumber() : timeArg;
  const ms = typeof ns === 'bigint' ? Number(ns / 1_000_000n) : Math.trunc(ns / 1e6);
  if (!Number.isFinite(ms) || ms < 0 || !Number.isInteger(Number(ns)))
    throw BuiltinError.type('operand 3 could not convert time_ns value into a unix timestamp');

  // Go's url.URL parts: host as written, EscapedPath, RawQuery.
  const m = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#]*)([^?#]*)(?:\?([^#]*))?/.exec(url);
  if (m === null) throw new BuiltinError(`invalid url ${JSON.stringify(url)}`);
  const host = m[1] ?? '';
  const path = m[2] ?? '';
  const rawQuery = m[3] ?? '';
  let payload = '';
  const raw = req.get('raw_body');
  if (typeof raw === 'string') payload = raw;
  else if (req.has('body') && req.get('body') !== null) payload = goJSON(req.get('body') as Value);
  const contentHash = disable === true ? 'UNSIGNED-PAYLOAD' : sha256(payload);

  const date = amzDate(ms);
  const day = date.slice(0, 8);
  const service = cfg['aws_service'] as string;
  const awsHeaders = new Map<string, string>([
    ['host', host],
    ['x-amz-date', date],
  ]);
  // Only S3 and Glacier want the payload hash header.
  if (service === 's3' || service === 'glacier') awsHeaders.set('x-amz-content-sha256', contentHash);
  if (typeof token === 'string' && token !== '') awsHeaders.set('x-amz-security-token', token);

  const toSignHeaders = new Map<string, string>(awsHeaders);
  const inHeaders = req.get('headers');
  const outHeaders = new RegoObject();
  if (inHeaders !== undefined) {
    if (!(inHeaders instanceof RegoObject)) throw BuiltinError.type('operand 1 invalid value for request headers');
    for (const [k, v] of inHeaders.entries()) {
      // OPA keeps only string header values (others become "").
      const value = typeof v === 'string' ? v : '';
      outHeaders.set(k, value);
      const lower = String(k).toLowerCase();
      if (!IGNORED.has(lower)) toSignHeaders.set(lower, value);
    }
  }
  const names = [...toSignHeaders.keys()].sort();
  const canonicalHeaders = names.map((n) => `${n}:${toSignHeaders.get(n) ?? ''}\n`).join('');
  const signedHeaders = names.join(';');
  const canonical = `${method}\n${path}\n${rawQuery}\n${canonicalHeaders}\n${signedHeaders}\n${contentHash}`;
  const scope = `${day}/${cfg['aws_region']}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', date, scope, sha256(canonical)].join('\n');
  let key = hmac(`AWS4${cfg['aws_secret_access_key']}`, day);
  key = hmac(key, cfg['aws_region'] as string);
  key = hmac(key, service);
  key = hmac(key, 'aws4_request');
  const signature = createHmac('sha256', key).update(toSign).digest('hex');

  for (const [k, v] of awsHeaders) outHeaders.set(k, v);
  outHeaders.set('Authorization', `AWS4-HMAC-SHA256 Credential=${cfg['aws_access_key']}/${scope},SignedHeaders=${signedHeaders},Signature=${signature}`);
  const out = req.copy();
  out.set('headers', outHeaders);
  return out;
}

export const awsSignBuiltins: BuiltinDefinition[] = [
  {
    name: 'providers.aws.sign_req',
    args: ['object', 'object', 'number'],
    result: 'object',
    impl: ([r, c, t]) => signReq(r, c, t),
  },
];
