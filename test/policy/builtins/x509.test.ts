/**
 * crypto.x509.* and crypto.parse_private_keys.
 *
 * fixtures/x509-opa.json holds what OPA v1.20.2 returns for certificates of
 * OPA's suite (whole Go structs: every field must match). The chain tests
 * build a fresh PKI with the real openssl CLI; the expected outcomes are
 * those OPA v1.20.2 gave for a PKI built by the same commands.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePolicy } from '../../../runtime/policy/engine.js';
import { parseJSON, toJS } from '../../../runtime/policy/value-json.js';
import { equal, RegoObject, type Value } from '../../../runtime/policy/value.js';

const here = dirname(fileURLToPath(import.meta.url));

function run(query: string, input?: unknown, modules: Record<string, string> = {}): Value | undefined {
  const rs = compilePolicy({ modules }).query(query, { input, strictBuiltinErrors: true });
  return rs[0]?.['x'];
}

function runError(query: string, input?: unknown): string {
  try {
    run(query, input);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('no error');
}

describe('x509 output shapes match OPA exactly', () => {
  const fixture = parseJSON(readFileSync(join(here, 'fixtures', 'x509-opa.json'), 'utf8')) as RegoObject;
  for (const c of fixture.get('cases') as RegoObject[]) {
    it(`${c.get('note') as string}: ${c.get('query') as string}`, () => {
      const mods = c.get('modules') as string[];
      const input = c.get('input');
      const rs = compilePolicy({ modules: Object.fromEntries(mods.map((m, i) => [`m${i}.rego`, m])) }).query(c.get('query') as string, {
        inputValue: input === null ? undefined : input,
        strictBuiltinErrors: true,
      });
      const got = rs[0]?.['x'];
      expect(got).toBeDefined();
      const want = c.get('want') as Value;
      if (!equal(want, got as Value)) expect(toJS(got as Value)).toEqual(toJS(want));
    });
  }
});

describe('x509 with a PKI made by openssl', () => {
  let dir = '';
  const pem: Record<string, string> = {};
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const ext = (name: string, text: string) => execFileSync('sh', ['-c', `cat > ${name}`], { cwd: dir, input: text });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'x509-'));
    const key = (n: string) => openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${n}.key`);
    key('root');
    openssl(
      'req',
      '-x509',
      '-new',
      '-key',
      'root.key',
      '-subj',
      '/O=Test/CN=Test Root',
      '-days',
      '36500',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-out',
      'root.pem',
    );
    key('int');
    openssl('req', '-new', '-key', 'int.key', '-subj', '/O=Test/CN=Test Intermediate', '-out', 'int.csr');
    ext('int.ext', 'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n');
    openssl(
      'x509',
      '-req',
      '-in',
      'int.csr',
      '-CA',
      'root.pem',
      '-CAkey',
      'root.key',
      '-CAcreateserial',
      '-days',
      '36500',
      '-extfile',
      'int.ext',
      '-out',
      'int.pem',
    );
    key('leaf');
    openssl(
      'req',
      '-new',
      '-key',
      'leaf.key',
      '-subj',
      '/CN=leaf.example.test',
      '-addext',
      'subjectAltName=DNS:leaf.example.test,URI:spiffe://example.test/leaf',
      '-out',
      'leaf.csr',
    );
    ext(
      'leaf.ext',
      'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:leaf.example.test,IP:10.0.0.1,URI:spiffe://example.test/leaf,email:a@example.test\n',
    );
    openssl(
      'x509',
      '-req',
      '-in',
      'leaf.csr',
      '-CA',
      'int.pem',
      '-CAkey',
      'int.key',
      '-CAcreateserial',
      '-days',
      '36500',
      '-extfile',
      'leaf.ext',
      '-out',
      'leaf.pem',
    );
    key('other');
    openssl(
      'req',
      '-x509',
      '-new',
      '-key',
      'other.key',
      '-subj',
      '/CN=Other Root',
      '-days',
      '36500',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-out',
      'other.pem',
    );
    for (const n of ['root.pem', 'int.pem', 'leaf.pem', 'other.pem', 'leaf.csr', 'leaf.key', 'root.key']) pem[n] = readFileSync(join(dir, n), 'utf8');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const input = () => ({
    chain: pem['root.pem']! + pem['int.pem']! + pem['leaf.pem']!,
    wrong: pem['other.pem']! + pem['int.pem']! + pem['leaf.pem']!,
    reversed: pem['leaf.pem']! + pem['int.pem']! + pem['root.pem']!,
    leaf: pem['leaf.pem']!,
    csr: pem['leaf.csr']!,
    key: pem['leaf.key']!,
    rootkey: pem['root.key']!,
  });
  const q = (query: string) => {
    const v = run(query, input());
    return v === undefined ? undefined : toJS(v);
  };

  it('verifies a root → intermediate → leaf chain and returns it leaf first', () => {
    expect(q('x := crypto.x509.parse_and_verify_certificates(input.chain)[0]')).toBe(true);
    expect(q('x := [c.Subject.CommonName | some c in crypto.x509.parse_and_verify_certificates(input.chain)[1]]')).toEqual([
      'leaf.example.test',
      'Test Intermediate',
      'Test Root',
    ]);
  });

  it('rejects a chain to another root, in the wrong order, or of one certificate', () => {
    expect(q('x := crypto.x509.parse_and_verify_certificates(input.wrong)')).toEqual([false, []]);
    expect(q('x := crypto.x509.parse_and_verify_certificates(input.reversed)')).toEqual([false, []]);
    expect(q('x := crypto.x509.parse_and_verify_certificates(input.leaf)')).toEqual([false, []]);
    expect(q('x := crypto.x509.parse_and_verify_certificates("")')).toEqual([false, []]);
  });

  it('applies DNSName, KeyUsages and CurrentTime options', () => {
    const v = (opts: string) => q(`x := crypto.x509.parse_and_verify_certificates_with_options(input.chain, ${opts})[0]`);
    expect(v('{"DNSName": "leaf.example.test"}')).toBe(true);
    expect(v('{"DNSName": "other.example.test"}')).toBe(false);
    expect(v('{"KeyUsages": ["KeyUsageClientAuth"]}')).toBe(false);
    expect(v('{"KeyUsages": ["KeyUsageAny"]}')).toBe(true);
    expect(v('{"KeyUsages": {"KeyUsageServerAuth", "KeyUsageClientAuth"}}')).toBe(true);
    expect(v('{"CurrentTime": 946684800000000000}')).toBe(false);
  });

  it("rejects bad options with OPA's messages", () => {
    const e = (opts: string) => runError(`x := crypto.x509.parse_and_verify_certificates_with_options(input.chain, ${opts})`, input());
    expect(e('{"KeyUsages": ["Nope"]}')).toContain("invalid entries for 'KeyUsages' found: [Nope]");
    expect(e('{"CurrentTime": "x"}')).toContain("'CurrentTime' should be a number");
    expect(e('{"KeyUsages": "x"}')).toContain("'KeyUsages' should be an Array or Set");
    expect(e('{"DNSName": 1}')).toContain("'DNSName' should be a string");
    expect(e('{"Foo": 1}')).toContain('invalid key option');
  });

  it('reads subject alternative names, key usages and path length', () => {
    expect(q('x := crypto.x509.parse_certificates(input.leaf)[0].IPAddresses')).toEqual(['10.0.0.1']);
    expect(q('x := crypto.x509.parse_certificates(input.leaf)[0].EmailAddresses')).toEqual(['a@example.test']);
    expect(q('x := crypto.x509.parse_certificates(input.leaf)[0].URIStrings')).toEqual(['spiffe://example.test/leaf']);
    expect(q('x := crypto.x509.parse_certificates(input.leaf)[0].ExtKeyUsage')).toEqual([1]);
    expect(q('x := crypto.x509.parse_certificates(input.leaf)[0].KeyUsage')).toBe(1);
    expect(q('x := crypto.x509.parse_certificates(input.leaf)[0].MaxPathLen')).toBe(-1);
    expect(q('x := crypto.x509.parse_certificates(input.chain)[1].MaxPathLenZero')).toBe(true);
  });

  it('parses a certificate request with its extensions', () => {
    expect(q('x := crypto.x509.parse_certificate_request(input.csr).DNSNames')).toEqual(['leaf.example.test']);
    expect(q('x := crypto.x509.parse_certificate_request(input.csr).URIs')).toEqual([
      {
        ForceQuery: false,
        Fragment: '',
        Host: 'example.test',
        OmitHost: false,
        Opaque: '',
        Path: '/leaf',
        RawFragment: '',
        RawPath: '',
        RawQuery: '',
        Scheme: 'spiffe',
        User: null,
      },
    ]);
    expect(q('x := [e.Id | some e in crypto.x509.parse_certificate_request(input.csr).Extensions]')).toEqual([[2, 5, 29, 17]]);
    expect(q('x := crypto.x509.parse_certificate_request(input.csr).Attributes[0].Type')).toEqual([1, 2, 840, 113549, 1, 9, 14]);
  });

  it('pairs a certificate with its key, and refuses a key that does not match', () => {
    const der = pem['leaf.pem']!.replace(/-----[A-Z ]+-----|\s/g, '');
    expect(q('x := crypto.x509.parse_keypair(input.leaf, input.key).Certificate')).toEqual([der]);
    expect(q('x := crypto.x509.parse_keypair(base64.encode(input.leaf), base64.encode(input.key)).Leaf.Subject.CommonName')).toBe('leaf.example.test');
    expect(runError('x := crypto.x509.parse_keypair(input.leaf, input.rootkey)', input())).toContain('tls: private key does not match public key');
    expect(runError('x := crypto.x509.parse_keypair(input.leaf, "abc")', input())).toContain('illegal base64 data at input byte 0');
  });

  it('reads private keys as Go key structs and as a JWK', () => {
    const keys = q('x := crypto.parse_private_keys(concat("", [input.key, input.rootkey]))') as Array<Record<string, unknown>>;
    expect(keys).toHaveLength(2);
    expect(Object.keys(keys[0]!).sort()).toEqual(['Curve', 'D', 'X', 'Y']);
    expect(q('x := crypto.x509.parse_rsa_private_key(input.key)')).toMatchObject({ kty: 'EC', crv: 'P-256' });
    expect(q('x := crypto.parse_private_keys("nope")')).toEqual([]);
    expect(q('x := crypto.parse_private_keys("")')).toBeNull();
  });
});

describe('x509 errors', () => {
  it("reports undecodable input with Go's messages", () => {
    expect(runError('x := crypto.x509.parse_certificates("foobar")')).toContain('illegal base64 data');
    expect(runError('x := crypto.x509.parse_certificates("YmFkc3RyaW5n")')).toContain('x509: malformed certificate');
    expect(runError('x := crypto.x509.parse_certificates("-----BEGIN FOO-----\\nAAAA\\n-----END FOO-----")')).toContain(
      "PEM block type is 'FOO', expected CERTIFICATE",
    );
    expect(runError('x := crypto.x509.parse_certificate_request("")')).toContain('asn1: syntax error: sequence truncated');
    expect(runError('x := crypto.x509.parse_certificate_request("YmFkc3RyaW5n")')).toContain('asn1: structure error');
    expect(runError('x := crypto.x509.parse_rsa_private_key("invalid")')).toContain('illegal base64 data at input byte 4');
    expect(toJS(run('x := crypto.x509.parse_certificates("")') as Value)).toEqual([]);
  });
});
