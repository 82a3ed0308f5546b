import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { errorOf, run } from '../helpers.js';

const strict = { strictBuiltinErrors: true };

describe('io.jwt builtins', () => {
  it('signs like RFC 7515 appendix A.1 and decodes', () => {
    const rows = run(
      'package t\n',
      'x := io.jwt.encode_sign({"alg": "HS256", "typ": "JWT"}, {"iss": "joe", "exp": 1300819380}, {"kty": "oct", "k": "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"}); d := io.jwt.decode(x)',
    );
    const d = rows[0]?.d as unknown[];
    expect(d[0]).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(d[1]).toEqual({ iss: 'joe', exp: 1300819380 });
    expect(d[2]).toMatch(/^[0-9a-f]{64}$/);
  });

  it('verifies every algorithm family with PEM and JWK keys', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const ed = generateKeyPairSync('ed25519');
    const cases: Array<[string, typeof rsa, string]> = [
      ['RS256', rsa, rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string],
      ['PS384', rsa, JSON.stringify({ keys: [rsa.publicKey.export({ format: 'jwk' })] })],
      ['ES256', ec, ec.publicKey.export({ type: 'spki', format: 'pem' }) as string],
      ['EdDSA', ed, JSON.stringify(ed.publicKey.export({ format: 'jwk' }))],
    ];
    for (const [alg, pair, pub] of cases) {
      const input = { alg, jwk: pair.privateKey.export({ format: 'jwk' }), pub };
      const fn = `io.jwt.verify_${alg.toLowerCase()}`;
      const rows = run(
        'package t\n',
        `t := io.jwt.encode_sign({"alg": input.alg}, {"aud": "you", "exp": 4102444800}, input.jwk); ok := ${fn}(t, input.pub); bad := ${fn}(concat("", [t, "x"]), input.pub); dv := io.jwt.decode_verify(t, {"cert": input.pub, "aud": "you"})`,
        { input },
      );
      expect(rows[0]?.ok, alg).toBe(true);
      expect(rows[0]?.bad, alg).toBe(false);
      expect((rows[0]?.dv as unknown[])[0], alg).toBe(true);
    }
  });

  it('applies decode_verify constraints like OPA', () => {
    const token = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjEuNTg5Mzg1NzcxMTIzNGUrMDksImlzcyI6Inh4eCJ9.PZ2z6VfHt9YdvHHUbilkTnw4R9TK3_V0LV1h-q0k9xg';
    const at = (time: string, extra = ''): unknown =>
      run('package t\n', `x := io.jwt.decode_verify("${token}", {"secret": "secret", "time": ${time}${extra}})`)[0]?.x;
    expect(at('1589385771123400000')).toEqual([false, {}, {}]);
    expect((at('1589385770123400000') as unknown[])[0]).toBe(true);
    expect(at('1589385770123400000', ', "iss": "other"')).toEqual([false, {}, {}]);
    expect(errorOf(() => run('package t\n', 'x := io.jwt.decode_verify("a.b.c", {})', strict))?.message).toContain('no key constraint');
    expect(errorOf(() => run('package t\n', 'x := io.jwt.decode_verify("a.b.c", {"secret": "s", "foo": 1})', strict))?.message).toContain(
      'unknown token validation constraint: foo',
    );
  });

  it('reports malformed tokens with OPA messages', () => {
    const e = errorOf(() => run('package t\n', 'x := io.jwt.decode("eyJhbGciOiJIU^%zI1NiI+sInR5cCI6IkpXVCJ9.e30.e30")', strict));
    expect(e?.message).toContain('JWT header had invalid encoding: illegal base64 data at input byte 13');
    expect(errorOf(() => run('package t\n', 'x := io.jwt.decode("abc")', strict))?.message).toContain('encoded JWT had no period separators');
  });
});
