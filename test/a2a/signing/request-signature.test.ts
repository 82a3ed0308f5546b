import { createHash, createHmac } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { SignatureError, type SignatureFailure } from '../../../runtime/a2a/errors/signature-error.js';
import { KeyRing } from '../../../runtime/a2a/signing/key-ring.js';
import { InProcessNonceStore } from '../../../runtime/a2a/signing/in-process-nonce-store.js';
import {
  canonicalRequest,
  MAX_CLOCK_SKEW_SECONDS,
  SIGNATURE_HEADERS,
  signRequest,
  verifyRequest,
  type VerifyRequestOptions,
} from '../../../runtime/a2a/signing/request-signature.js';
import { createSigningKey, type SigningKey } from '../../../runtime/a2a/signing/signing-key.js';

const NOW = 1_700_000_000_000;
const plannerKey = createSigningKey({ id: 'planner-1', agent: 'planner', secret: Buffer.alloc(32, 0x11) });
const orchestratorKey = createSigningKey({ id: 'orch-1', agent: 'orchestrator', secret: Buffer.alloc(32, 0x22) });
const ring = new KeyRing([plannerKey, orchestratorKey]);
const BODY = '{"jsonrpc":"2.0","method":"message/send","id":1}';

interface Request {
  method: string;
  path: string;
  body: string | Uint8Array;
  headers: Record<string, string>;
}

function signed(overrides: { key?: SigningKey; source?: string; target?: string; now?: number; nonce?: string } = {}): Request {
  const key = overrides.key ?? plannerKey;
  const headers = signRequest({
    method: 'post',
    path: '/a2a?stream=1',
    body: BODY,
    source: overrides.source ?? key.agent,
    target: overrides.target ?? 'orchestrator',
    key,
    now: overrides.now ?? NOW,
    ...(overrides.nonce === undefined ? {} : { nonce: overrides.nonce }),
  });
  return { method: 'POST', path: '/a2a?stream=1', body: BODY, headers };
}

let nonces: InProcessNonceStore;
beforeEach(() => {
  nonces = new InProcessNonceStore({ now: () => NOW });
});

function verify(request: Request, options: Partial<VerifyRequestOptions> = {}) {
  return verifyRequest({
    method: request.method,
    path: request.path,
    body: request.body,
    header: (name) => request.headers[name.toLowerCase()],
    self: 'orchestrator',
    keys: ring,
    nonces,
    now: NOW,
    ...options,
  });
}

async function failure(call: Promise<unknown>, expected: SignatureFailure): Promise<SignatureError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SignatureError);
  expect((error as SignatureError).failure).toBe(expected);
  expect((error as SignatureError).code).toBe('signature_invalid');
  const message = (error as Error).message;
  for (const key of [plannerKey, orchestratorKey]) {
    expect(message).not.toContain(key.secret.toString('base64url'));
    expect(message).not.toContain(key.secret.toString('hex'));
  }
  return error as SignatureError;
}

describe('canonicalRequest', () => {
  it('joins the scheme and fields with newlines, method upper-cased', () => {
    const fields = {
      method: 'post',
      path: '/a2a?x=1',
      timestamp: '1700000000',
      nonce: 'n'.repeat(22),
      source: 'planner',
      target: 'orchestrator',
      bodySha256: 'ab',
    };
    expect(canonicalRequest(fields)).toBe(['FW1-HMAC-SHA256', 'POST', '/a2a?x=1', '1700000000', 'n'.repeat(22), 'planner', 'orchestrator', 'ab'].join('\n'));
    expect(() => canonicalRequest({ ...fields, path: '/a\nb' })).toThrow(TypeError);
  });
});

describe('signRequest', () => {
  it('produces the five headers with an HMAC of the canonical string', () => {
    const headers = signRequest({ method: 'POST', path: '/a2a', body: BODY, source: 'planner', target: 'orchestrator', key: plannerKey, now: NOW + 999 });
    expect(Object.keys(headers).sort()).toEqual(Object.values(SIGNATURE_HEADERS).sort());
    expect(headers[SIGNATURE_HEADERS.agent]).toBe('planner');
    expect(headers[SIGNATURE_HEADERS.keyId]).toBe('planner-1');
    expect(headers[SIGNATURE_HEADERS.timestamp]).toBe('1700000000');
    const nonce = headers[SIGNATURE_HEADERS.nonce]!;
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const canonical = ['FW1-HMAC-SHA256', 'POST', '/a2a', '1700000000', nonce, 'planner', 'orchestrator', createHash('sha256').update(BODY).digest('hex')].join(
      '\n',
    );
    expect(headers[SIGNATURE_HEADERS.signature]).toBe(createHmac('sha256', Buffer.alloc(32, 0x11)).update(canonical).digest('base64url'));
    expect(
      signRequest({ method: 'POST', path: '/a2a', body: BODY, source: 'planner', target: 'orchestrator', key: plannerKey })[SIGNATURE_HEADERS.nonce],
    ).not.toBe(nonce);
  });

  it('refuses to sign for an agent the key does not belong to, and bad nonces', () => {
    expect(() => signRequest({ method: 'POST', path: '/', body: '', source: 'orchestrator', target: 'x', key: plannerKey })).toThrow(TypeError);
    expect(() => signRequest({ method: 'POST', path: '/', body: '', source: 'planner', target: 'x', key: plannerKey, nonce: 'short' })).toThrow(TypeError);
  });
});

describe('verifyRequest', () => {
  it('accepts a signed request and names the caller (string or byte bodies)', async () => {
    await expect(verify(signed())).resolves.toEqual({ agent: 'planner', keyId: 'planner-1' });
    const bytes = new TextEncoder().encode(BODY);
    const request = signed();
    await expect(verify({ ...request, body: bytes })).resolves.toEqual({ agent: 'planner', keyId: 'planner-1' });
  });

  it('accepts timestamps up to the allowed skew either way', async () => {
    await expect(verify(signed({ now: NOW - MAX_CLOCK_SKEW_SECONDS * 1000 }))).resolves.toBeDefined();
    await expect(verify(signed({ now: NOW + MAX_CLOCK_SKEW_SECONDS * 1000 }))).resolves.toBeDefined();
  });

  it('refuses a tampered body, path or method', async () => {
    await failure(verify({ ...signed(), body: BODY.replace('1}', '2}') }), 'bad_signature');
    await failure(verify({ ...signed(), path: '/a2a?stream=0' }), 'bad_signature');
    await failure(verify({ ...signed(), path: '/a2a' }), 'bad_signature');
    await failure(verify({ ...signed(), method: 'PUT' }), 'bad_signature');
  });

  it('refuses a request signed for another agent, saying which target it expected', async () => {
    const error = await failure(verify(signed({ target: 'critic' })), 'bad_signature');
    expect(error.message).toContain('"orchestrator"');
  });

  it('refuses a signature made with the wrong secret', async () => {
    const impostor = createSigningKey({ id: 'planner-1', agent: 'planner', secret: Buffer.alloc(32, 0x99) });
    await failure(verify(signed({ key: impostor })), 'bad_signature');
  });

  it('refuses an unknown key id', async () => {
    const stranger = createSigningKey({ id: 'ghost-1', agent: 'planner', secret: Buffer.alloc(32, 0x11) });
    const error = await failure(verify(signed({ key: stranger })), 'unknown_key');
    expect(error.message).toContain('ghost-1');
  });

  it("refuses an agent header that is not the key's agent (the planner cannot claim to be the orchestrator)", async () => {
    const request = signed();
    request.headers[SIGNATURE_HEADERS.agent] = 'orchestrator';
    await failure(verify(request, { self: 'critic' }), 'agent_mismatch');
  });

  it('refuses timestamps 301 s old or 301 s ahead, stating the window', async () => {
    const old = await failure(verify(signed({ now: NOW - 301_000 })), 'stale_timestamp');
    expect(old.message).toContain('±300 s');
    expect(old.message).toMatch(/clocks/);
    await failure(verify(signed({ now: NOW + 301_000 })), 'stale_timestamp');
    await failure(verify(signed({ now: NOW - 61_000 }), { maxSkewSeconds: 60 }), 'stale_timestamp');
  });

  it('refuses a replayed nonce, per key', async () => {
    const request = signed();
    await verify(request);
    await failure(verify(request), 'replayed_nonce');
    // The same nonce under another key is another claim.
    const nonce = request.headers[SIGNATURE_HEADERS.nonce]!;
    await expect(verify(signed({ key: orchestratorKey, target: 'orchestrator', nonce }))).resolves.toEqual({ agent: 'orchestrator', keyId: 'orch-1' });
  });

  it('does not let a forged request consume its nonce', async () => {
    const genuine = signed();
    await failure(verify({ ...genuine, body: '{"forged":true}' }), 'bad_signature');
    const wrongAgent = { ...genuine, headers: { ...genuine.headers, [SIGNATURE_HEADERS.agent]: 'orchestrator' } };
    await failure(verify(wrongAgent), 'agent_mismatch');
    await expect(verify(genuine)).resolves.toEqual({ agent: 'planner', keyId: 'planner-1' });
  });

  it('claims nonces for twice the allowed skew', async () => {
    const claims: number[] = [];
    await verify(signed(), { nonces: { claim: async (_k, _n, ttl) => (claims.push(ttl), true), close: async () => {} }, maxSkewSeconds: 45 });
    expect(claims).toEqual([90]);
  });

  it('calls an unsigned request unsigned, and a partly signed one malformed, naming what is missing', async () => {
    const none = await failure(verify({ ...signed(), headers: {} }), 'unsigned');
    expect(none.message).toContain('x-framework-signature');
    for (const header of Object.values(SIGNATURE_HEADERS)) {
      const request = signed();
      delete request.headers[header];
      const error = await failure(verify(request), 'malformed');
      expect(error.message).toContain(header);
    }
  });

  it('calls malformed header values malformed, before any other check', async () => {
    const cases: Record<string, string> = {
      [SIGNATURE_HEADERS.agent]: 'Planner',
      [SIGNATURE_HEADERS.keyId]: 'bad key',
      [SIGNATURE_HEADERS.timestamp]: '-5',
      [SIGNATURE_HEADERS.nonce]: 'too-short',
      [SIGNATURE_HEADERS.signature]: 'c2lnbmF0dXJl',
    };
    for (const [header, value] of Object.entries(cases)) {
      const request = signed({ now: NOW - 10_000_000 });
      request.headers[header] = value;
      const error = await failure(verify(request), 'malformed');
      expect(error.message).toContain(header);
    }
    const padded = signed();
    padded.headers[SIGNATURE_HEADERS.signature] += '=';
    await failure(verify(padded), 'malformed');
    const fractional = signed();
    fractional.headers[SIGNATURE_HEADERS.timestamp] = '1700000000.5';
    await failure(verify(fractional), 'malformed');
  });

  it('rejects (fails closed) when the nonce store fails', async () => {
    const broken = { claim: async () => Promise.reject(new Error('store down')), close: async () => {} };
    await expect(verify(signed(), { nonces: broken })).rejects.toThrow('store down');
  });
});
