import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { CompactSign, importPKCS8 } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { readBundleArchive, type BundleLimits } from '../../../runtime/policy/server/bundle-archive.js';
import { canonicalJson } from '../../../runtime/policy/server/bundle-signature.js';
import { PolicyLoadError } from '../../../runtime/policy/server/policy-problem.js';
import { startPolicyServer, type RunningPolicyServer, type StartPolicyServerOptions } from '../../../runtime/policy/server/start-policy-server.js';
import { tarGz, type TarEntry } from '../../support/tar.js';

// OPA bundles served by `policy serve --bundle`, each answer as `opa run --server --bundle` gives it
// (messages from OPA's bundle/bundle.go and server.go: no OPA binary runs here to compare with, see docs/policy.md).

const work = mkdtempSync(join(tmpdir(), 'fw-bundles-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let counter = 0;

/** Writes files into a fresh directory and returns its path. */
function bundleDir(files: Record<string, string>): string {
  const dir = join(work, `b${++counter}`);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

function bundleTar(entries: readonly TarEntry[]): string {
  const path = join(work, `b${++counter}.tar.gz`);
  writeFileSync(path, tarGz(entries));
  return path;
}

const AUTHZ = {
  '.manifest': JSON.stringify({ revision: 'rev-7', roots: ['authz'], metadata: { team: 'platform' } }),
  'authz/policy.rego': 'package authz\n\ndefault allow := false\n\nallow if input.user in data.authz.admins\n',
  'authz/data.json': '{"admins": ["alice"]}',
};

async function serve(options: Partial<StartPolicyServerOptions>): Promise<RunningPolicyServer> {
  return startPolicyServer({ port: 0, watch: false, workers: 0, ...options });
}

/** The problems a start refused with, as `file: message` lines. */
async function refused(options: Partial<StartPolicyServerOptions>): Promise<string[]> {
  try {
    const server = await serve(options);
    await server.close();
  } catch (error) {
    if (error instanceof PolicyLoadError) return error.problems.map((p) => p.message);
    throw error;
  }
  throw new Error('the server started');
}

async function json(res: Response): Promise<unknown> {
  return JSON.parse(await res.text());
}

describe('policy serve --bundle', () => {
  it('serves a bundle directory: decisions, its revision in /v1/status and ?provenance, writes under its roots refused as OPA refuses them', async () => {
    const dir = bundleDir(AUTHZ);
    const server = await serve({ bundles: [dir], allowWrites: true });
    try {
      const post = (path: string, body: unknown) => fetch(`${server.url}${path}`, { method: 'POST', body: JSON.stringify(body) });
      expect(await json(await post('/v1/data/authz/allow', { input: { user: 'alice' } }))).toEqual({ result: true });
      expect(await json(await post('/v1/data/authz/allow', { input: { user: 'bob' } }))).toEqual({ result: false });
      const provenance = (await json(await post('/v1/data/authz/allow?provenance', { input: { user: 'alice' } }))) as Record<string, unknown>;
      expect(provenance.provenance).toMatchObject({ bundles: { [dir]: { revision: 'rev-7' } } });
      const status = (await json(await fetch(`${server.url}/v1/status`))) as { result: { bundles: Record<string, Record<string, unknown>> } };
      expect(Object.keys(status.result.bundles)).toEqual([dir]);
      expect(status.result.bundles[dir]).toMatchObject({ name: dir, active_revision: 'rev-7' });
      expect((await json(await fetch(`${server.url}/health?bundles`))) as unknown).toMatchObject({ bundles: { [dir]: { active_revision: 'rev-7' } } });

      const put = (path: string, body: string) => fetch(`${server.url}${path}`, { method: 'PUT', body });
      const under = await put('/v1/data/authz/admins', '["mallory"]');
      expect([under.status, await json(under)]).toEqual([
        400,
        { code: 'invalid_parameter', message: `path authz/admins is owned by bundle ${JSON.stringify(dir)}` },
      ]);
      const above = await fetch(`${server.url}/v1/data`, { method: 'PATCH', body: JSON.stringify([{ op: 'add', path: '/authz/x', value: 1 }]) });
      expect([above.status, await json(above)]).toEqual([
        400,
        { code: 'invalid_parameter', message: `path authz/x is owned by bundle ${JSON.stringify(dir)}` },
      ]);
      const root = await put('/v1/data', '{}');
      expect([root.status, await json(root)]).toEqual([
        400,
        { code: 'invalid_parameter', message: "can't write to document root with bundle roots configured" },
      ]);
      // Outside the roots, writes go through as before.
      expect((await put('/v1/data/scratch', '{"n": 1}')).status).toBe(204);
      expect(await json(await fetch(`${server.url}/v1/data/scratch/n`))).toEqual({ result: 1 });
      expect(await json(await post('/v1/data/authz/allow', { input: { user: 'alice' } }))).toEqual({ result: true });
      // A policy whose package lies under a root, or replacing a bundle's module, is refused too.
      const policy = await put('/v1/policies/mine', 'package authz.extra\n\nx := 1\n');
      expect([policy.status, await json(policy)]).toEqual([
        400,
        { code: 'invalid_parameter', message: `path authz/extra is owned by bundle ${JSON.stringify(dir)}` },
      ]);
      const replace = await put(`/v1/policies/${encodeURIComponent(`${dir}/authz/policy.rego`)}`, 'package other\n\nx := 1\n');
      expect(replace.status).toBe(400);
      expect((await put('/v1/policies/mine', 'package other\n\nx := 1\n')).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('serves a .tar.gz bundle beside a policy directory and a second bundle, each under its own name', async () => {
    const archive = bundleTar(Object.entries(AUTHZ).map(([name, content]) => ({ name: `/${name}`, content })));
    const other = bundleDir({ '.manifest': '{"revision": "o-1", "roots": ["billing"]}', 'billing/p.rego': 'package billing\n\nlimit := 10\n' });
    const plain = bundleDir({ 'x.rego': 'package plain\n\ny := 2\n' });
    const server = await serve({ dir: plain, bundles: [archive, other] });
    try {
      const get = async (path: string) => json(await fetch(`${server.url}/v1/data/${path}`));
      expect(await get('authz/admins')).toEqual({ result: ['alice'] });
      expect(await get('billing/limit')).toEqual({ result: 10 });
      expect(await get('plain/y')).toEqual({ result: 2 });
      const provenance = (await json(await fetch(`${server.url}/v1/data/plain/y?provenance`))) as {
        provenance: { bundles: Record<string, { revision: string }> };
      };
      expect(provenance.provenance.bundles[archive]).toEqual({ revision: 'rev-7' });
      expect(provenance.provenance.bundles[other]).toEqual({ revision: 'o-1' });
      expect(Object.keys(provenance.provenance.bundles).sort()).toEqual([archive, other, 'policies'].sort());
      const ids = ((await json(await fetch(`${server.url}/v1/policies`))) as { result: Array<{ id: string }> }).result.map((p) => p.id);
      expect(ids).toContain(`${archive}/authz/policy.rego`);
    } finally {
      await server.close();
    }
  });

  it("reads each module in the Rego version the manifest's file_rego_versions gives it (OPA's RegoVersionForFile), in a directory and an archive", async () => {
    const V0 = 'package legacy\n\ndeny[msg] { msg := "v0" }\n';
    const V1 = 'package modern\n\nallow if input.ok\n';
    const manifest = JSON.stringify({ rego_version: 1, file_rego_versions: { '/legacy/*.rego': 0 } });
    const dir = bundleDir({ '.manifest': manifest, 'legacy/old.rego': V0, 'modern/new.rego': V1 });
    // An archive names its entries as written: OPA matches the patterns against those names.
    const archive = bundleTar([
      { name: '.manifest', content: JSON.stringify({ file_rego_versions: { 'legacy/*': 0 } }) },
      { name: 'legacy/old.rego', content: V0 },
      { name: 'modern/new.rego', content: V1 },
    ]);
    for (const bundle of [dir, archive]) {
      const server = await serve({ bundles: [bundle] });
      try {
        expect(await json(await fetch(`${server.url}/v1/data/legacy/deny`))).toEqual({ result: ['v0'] });
        expect(await json(await fetch(`${server.url}/v1/data/modern/allow`, { method: 'POST', body: '{"input": {"ok": true}}' }))).toEqual({ result: true });
      } finally {
        await server.close();
      }
    }
    // Without the pattern the v0 file is v1 and does not parse; a version other than 0 or 1 is OPA's error for the file it names.
    expect((await refused({ bundles: [bundleDir({ '.manifest': '{"rego_version": 1}', 'legacy/old.rego': V0 })] })).join('\n')).toMatch(
      /`if` keyword is required/,
    );
    expect(await refused({ bundles: [bundleDir({ '.manifest': '{"file_rego_versions": {"/legacy/*": 3}}', 'legacy/old.rego': V0 })] })).toEqual([
      "unknown bundle rego-version 3 for file '/legacy/old.rego'",
    ]);
    expect(
      await refused({ bundles: [bundleDir({ '.manifest': '{"file_rego_versions": {"/legacy/[": 0}}', 'legacy/old.rego': V0, 'legacy/older.rego': V0 })] }),
    ).toEqual([expect.stringMatching(/^failed to compile glob pattern \/legacy\/\[: /)]);
  });

  it("refuses modules and data outside the manifest's roots, overlapping roots, and two bundles that overlap, in OPA's words", async () => {
    const outside = bundleDir({
      '.manifest': '{"roots": ["authz"]}',
      'authz/a.rego': 'package authz\n\nx := 1\n',
      'other/b.rego': 'package other.deep\n\ny := 1\n',
    });
    expect(await refused({ bundles: [outside] })).toEqual([`manifest roots [authz] do not permit 'package other.deep' in module '${outside}/other/b.rego'`]);
    const data = bundleDir({ '.manifest': '{"roots": ["authz", "x/y"]}', 'x/z/data.json': '{"k": 1}' });
    expect(await refused({ bundles: [data] })).toEqual([
      "manifest roots [authz x/y] do not permit data at path '/x/z' (hint: check bundle directory structure)",
    ]);
    const overlapped = bundleDir({ '.manifest': '{"roots": ["a", "a/b"]}' });
    expect(await refused({ bundles: [overlapped] })).toEqual(["manifest has overlapped roots: 'a' and 'a/b'"]);
    const first = bundleDir({ '.manifest': '{"roots": ["a/b"]}' });
    const second = bundleDir({ '.manifest': '{"roots": ["a"]}' });
    expect(await refused({ bundles: [first, second] })).toEqual([`detected overlapping roots in bundle manifest with: [${first} ${second}]`]);
    // No manifest: the bundle owns every path (roots [""]), so it overlaps any other bundle.
    const rootless = bundleDir({ 'p.rego': 'package p\n\nq := 1\n' });
    expect(await refused({ bundles: [rootless, first] })).toEqual([
      `detected overlapping roots in bundle manifest with: [${[rootless, first].sort().join(' ')}]`,
    ]);
    const badRevision = bundleDir({ '.manifest': '{"revision": 7}' });
    expect(await refused({ bundles: [badRevision] })).toEqual(['bundle load failed on manifest decode: revision must be a string']);
  });

  it('reads a tar.gz within bounds: a gzip bomb, ../ paths, links, oversized entries and non-gzip files are refused with a clear error', async () => {
    const small: BundleLimits = { maxArchiveBytes: 1024 * 1024, maxTotalBytes: 256 * 1024, maxFileBytes: 64 * 1024, maxFiles: 10 };
    const bomb = join(work, 'bomb.tar.gz');
    writeFileSync(bomb, gzipSync(Buffer.alloc(64 * 1024 * 1024)));
    expect(await refused({ bundles: [bomb], bundleLimits: small })).toEqual([`bundle archive inflates past the limit of ${256 * 1024} bytes`]);
    const cases: Array<[TarEntry[], string]> = [
      [[{ name: '../escape.rego', content: 'package x\n' }], 'bundle archive entry "../escape.rego" is not a path inside the bundle'],
      [[{ name: 'a/../../etc/x.rego', content: 'package x\n' }], 'bundle archive entry "a/../../etc/x.rego" is not a path inside the bundle'],
      [
        [{ name: 'link.rego', type: 'symlink', linkname: '/etc/passwd' }],
        'bundle archive entry "link.rego" is a symbolic link; a bundle holds regular files only',
      ],
      [[{ name: 'hard.rego', type: 'hardlink', linkname: 'x.rego' }], 'bundle archive entry "hard.rego" is a hard link; a bundle holds regular files only'],
      [
        [{ name: 'big/data.json', content: Buffer.alloc(70 * 1024, 0x20) }],
        `bundle file 'big/data.json' size (${70 * 1024} bytes) exceeded max size (${64 * 1024} bytes)`,
      ],
      [Array.from({ length: 11 }, (_, i) => ({ name: `f${i}.txt`, content: 'x' })), 'bundle holds more than 10 files'],
      [
        [
          { name: 'x.rego', content: 'package x\n' },
          { name: './x.rego', content: 'package y\n' },
        ],
        'bundle archive holds "x.rego" twice',
      ],
    ];
    for (const [entries, message] of cases) expect(await refused({ bundles: [bundleTar(entries)], bundleLimits: small })).toEqual([message]);
    const notGzip = join(work, 'plain.tar.gz');
    writeFileSync(notGzip, 'not gzip at all');
    expect((await refused({ bundles: [notGzip] }))[0]).toMatch(/^bundle archive is not gzip-compressed data: /);
    const truncated = tarGz([{ name: 'x.rego', content: 'package x\n' }]);
    await expect(readBundleArchive(gzipSync(gunzipSync(truncated).subarray(0, 515)))).rejects.toThrow(/truncated/);
    expect((await refused({ bundles: [join(work, 'missing.tar.gz')] }))[0]).toMatch(/no such file or directory/);
  });

  it('reads archives made by the system tar (GNU tar: ./ prefixes, directory entries) as the hand-written ones', async () => {
    const dir = bundleDir(AUTHZ);
    const archive = join(work, 'gnu.tar.gz');
    execFileSync('tar', ['-czf', archive, '-C', dir, '.']);
    const server = await serve({ bundles: [archive] });
    try {
      expect(await json(await fetch(`${server.url}/v1/data/authz/allow`, { method: 'POST', body: '{"input": {"user": "alice"}}' }))).toEqual({ result: true });
    } finally {
      await server.close();
    }
  });

  it('follows links that stay inside a bundle directory (a ConfigMap mount) and refuses one that leaves it', async () => {
    const dir = bundleDir({ '..data/authz/policy.rego': AUTHZ['authz/policy.rego'], '.manifest': '{"roots": ["authz"]}' });
    mkdirSync(join(dir, 'authz'));
    symlinkSync(join(dir, '..data/authz/policy.rego'), join(dir, 'authz/policy.rego'));
    const server = await serve({ bundles: [dir] });
    try {
      expect(await json(await fetch(`${server.url}/v1/data/authz/allow`, { method: 'POST', body: '{"input": {"user": "x"}}' }))).toEqual({ result: false });
    } finally {
      await server.close();
    }
    const secret = bundleDir({ 'secret.rego': 'package secret\n\nk := "s"\n' });
    symlinkSync(join(secret, 'secret.rego'), join(dir, 'authz/stolen.rego'));
    expect(await refused({ bundles: [dir] })).toEqual(['bundle file "authz/stolen.rego" links outside the bundle directory']);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Signed bundles

const FILES = {
  '.manifest': '{"revision": "s-1", "roots": ["authz"]}',
  'authz/policy.rego': AUTHZ['authz/policy.rego'],
  'authz/data.json': '{ "admins" : ["alice"] }',
};

/** The digests the JWT lists, computed here the way OPA documents them (canonical JSON for structured files). */
function signedFiles(files: Record<string, string>): Array<{ name: string; hash: string; algorithm: string }> {
  const canonical: Record<string, string> = { '.manifest': '{"revision":"s-1","roots":["authz"]}', 'authz/data.json': '{"admins":["alice"]}' };
  return Object.entries(files).map(([name, content]) => ({
    name,
    hash: createHash('sha256')
      .update(canonical[name] ?? content)
      .digest('hex'),
    algorithm: 'SHA-256',
  }));
}

async function jwt(payload: unknown, alg: string, key: Uint8Array | KeyObject, header: Record<string, unknown> = {}): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg, ...header }).sign(key);
}

function signedBundle(files: Record<string, string>, token: string): string {
  return bundleDir({ ...files, '.signatures.json': JSON.stringify({ signatures: [token] }) });
}

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const rsaPublic = rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ecPublic = ec.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const SECRET = 'a shared secret of some length';

describe('signed bundles (--verification-key)', () => {
  const decide = async (options: Partial<StartPolicyServerOptions>) => {
    const server = await serve(options);
    try {
      return await json(await fetch(`${server.url}/v1/data/authz/allow`, { method: 'POST', body: '{"input": {"user": "alice"}}' }));
    } finally {
      await server.close();
    }
  };

  it('serves a bundle signed with HS256, RS256 or ES256 under the configured key, and the key may be a file', async () => {
    const payload = { files: signedFiles(FILES) };
    expect(
      await decide({
        bundles: [signedBundle(FILES, await jwt(payload, 'HS256', new TextEncoder().encode(SECRET)))],
        verification: { key: SECRET, algorithm: 'HS256' },
      }),
    ).toEqual({
      result: true,
    });
    expect(await decide({ bundles: [signedBundle(FILES, await jwt(payload, 'RS256', rsa.privateKey))], verification: { key: rsaPublic } })).toEqual({
      result: true,
    });
    const keyFile = join(work, 'ec.pem');
    writeFileSync(keyFile, ecPublic);
    const scoped = { ...payload, scope: 'write' };
    expect(
      await decide({
        bundles: [signedBundle(FILES, await jwt(scoped, 'ES256', ec.privateKey, { kid: 'k1' }))],
        verification: { key: keyFile, algorithm: 'ES256', keyId: 'k1', scope: 'write' },
      }),
    ).toEqual({ result: true });
    // An archive too (files in the JWT named without the leading slash the archive has).
    const archive = bundleTar(
      Object.entries({ ...FILES, '.signatures.json': JSON.stringify({ signatures: [await jwt(payload, 'RS256', rsa.privateKey)] }) }).map(
        ([name, content]) => ({
          name: `/${name}`,
          content,
        }),
      ),
    );
    expect(await decide({ bundles: [archive], verification: { key: rsaPublic } })).toEqual({ result: true });
  });

  it('refuses every mismatch: a file added, removed or changed, a wrong key, another algorithm, none, scope, no signature, no key', async () => {
    const payload = { files: signedFiles(FILES) };
    const good = await jwt(payload, 'RS256', rsa.privateKey);
    const rs = { key: rsaPublic };
    const cases: Array<[string, Partial<StartPolicyServerOptions>, string | RegExp]> = [
      [
        'added',
        { bundles: [signedBundle({ ...FILES, 'authz/extra.rego': 'package authz\n\ndeny := true\n' }, good)], verification: rs },
        'file authz/extra.rego not included in bundle signature',
      ],
      [
        'removed',
        { bundles: [signedBundle({ '.manifest': FILES['.manifest'], 'authz/policy.rego': FILES['authz/policy.rego'] }, good)], verification: rs },
        'file(s) [authz/data.json] specified in bundle signatures but not found in the target bundle',
      ],
      [
        'changed',
        { bundles: [signedBundle({ ...FILES, 'authz/data.json': '{"admins": ["alice", "mallory"]}' }, good)], verification: rs },
        /^authz\/data\.json: digest mismatch \(want: [0-9a-f]{64}, got: [0-9a-f]{64}\)$/,
      ],
      [
        'wrong key',
        {
          bundles: [signedBundle(FILES, good)],
          verification: { key: generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString() },
        },
        /^failed to verify the bundle signature: /,
      ],
      // The classic confusion: the RSA public key's text used as an HMAC secret; the server expects RS256 and refuses HS256.
      [
        'HS256 over the public key',
        { bundles: [signedBundle(FILES, await jwt(payload, 'HS256', new TextEncoder().encode(rsaPublic)))], verification: rs },
        'failed to verify the bundle signature: the JWT is signed with "HS256", not RS256',
      ],
      [
        'none',
        {
          bundles: [
            signedBundle(FILES, `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.`),
          ],
          verification: rs,
        },
        'failed to verify the bundle signature: the JWT is signed with "none", not RS256',
      ],
      ['scope', { bundles: [signedBundle(FILES, await jwt({ ...payload, scope: 'read' }, 'RS256', rsa.privateKey))], verification: rs }, 'scope mismatch'],
      ['kid elsewhere', { bundles: [signedBundle(FILES, good)], verification: { key: rsaPublic, keyId: '' } }, 'verification key ID is empty'],
      ['unsigned', { bundles: [bundleDir(FILES)], verification: rs }, 'bundle missing .signatures.json file'],
      ['no key', { bundles: [signedBundle(FILES, good)] }, 'verification key not provided'],
      [
        'two JWTs',
        { bundles: [bundleDir({ ...FILES, '.signatures.json': JSON.stringify({ signatures: [good, good] }) })], verification: rs },
        '.signatures.json: multiple JWTs not supported (expected exactly one)',
      ],
    ];
    for (const [what, options, message] of cases) {
      const problems = await refused(options);
      expect(problems, what).toHaveLength(1);
      if (typeof message === 'string') expect(problems[0], what).toBe(message);
      else expect(problems[0], what).toMatch(message);
    }
  });

  it('leaves files matching --exclude-files-verify out, and refuses a PEM key as an HMAC secret or a key that does not fit the algorithm at start', async () => {
    const payload = { files: signedFiles(FILES) };
    const token = await jwt(payload, 'RS256', rsa.privateKey);
    const withReadme = signedBundle({ ...FILES, 'docs/README.md': 'unsigned notes' }, token);
    expect(await decide({ bundles: [withReadme], verification: { key: rsaPublic, excludeFiles: ['docs/*.md'] } })).toEqual({ result: true });
    expect(await refused({ bundles: [withReadme], verification: { key: rsaPublic, excludeFiles: ['*.md'] } })).toEqual([
      'file docs/README.md not included in bundle signature',
    ]);
    await expect(serve({ bundles: [withReadme], verification: { key: rsaPublic, algorithm: 'HS256' } })).rejects.toThrow(
      /takes a shared secret, but the verification key is a PEM key/,
    );
    await expect(serve({ bundles: [withReadme], verification: { key: rsaPublic, algorithm: 'ES256' } })).rejects.toThrow(/does not fit the verification key/);
    await expect(serve({ bundles: [withReadme], verification: { key: SECRET } })).rejects.toThrow(/needs a PEM public key/);
    // Private key material given by mistake still verifies (its public half), as OPA's PEM parsing allows.
    const pkcs8 = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    await importPKCS8(pkcs8, 'RS256');
    expect(await decide({ bundles: [withReadme], verification: { key: pkcs8, excludeFiles: ['docs/*'] } })).toEqual({ result: true });
  });
});

describe("the digest input of a structured file (OPA's bundle/hash.go)", () => {
  it('sorts keys by bytes, keeps number literals as written, writes strings as Go without HTML escaping', () => {
    // The inputs of OPA's own TestHashFile: a json.Number literal kept whole, HTML characters left alone.
    expect(
      canonicalJson('{"key2": {"c": 123.45678911111111111111111111111111111111111111111111111, "b": 1, "a": 0}, "key1": ["element1", "element2"]}', 'x'),
    ).toBe('{"key1":["element1","element2"],"key2":{"a":0,"b":1,"c":123.45678911111111111111111111111111111111111111111111111}}');
    expect(canonicalJson('"<foo></foo> & \\u003c"', 'x')).toBe('"<foo></foo> & <"');
    expect(canonicalJson('["$", "α", "©", "™", 1e400, -0.0]', 'x')).toBe('["$","α","©","™",1e400,-0.0]');
    // Go's encoder: \b and \f short (Go 1.22+), other controls as \u00xx, U+2028/2029 escaped, a lone surrogate U+FFFD.
    expect(canonicalJson('"\\b\\f\\u0001\\u2028\\ud800\\/"', 'x')).toBe('"\\b\\f\\u0001\\u2028\uFFFD/"');
    // Byte order of UTF-8, not UTF-16: U+FF61 sorts before U+1F600 in Go, after it in JavaScript's default sort.
    expect(canonicalJson('{"\uD83D\uDE00": 1, "\uFF61": 2, "Z": 3, "a": 4}', 'x')).toBe('{"Z":3,"a":4,"\uFF61":2,"\uD83D\uDE00":1}');
    // The last of duplicate keys wins, as Go's map decoding keeps it.
    expect(canonicalJson('{"a": 1, "a": 2}', 'x')).toBe('{"a":2}');
    expect(() => canonicalJson('{"a": 1,}', 'data.json')).toThrow(/^data\.json: not JSON/);
    expect(() => canonicalJson('[1] x', 'data.json')).toThrow(/trailing characters/);
    // A data.json 9,999 levels deep (OPA reads 10,000; it was refused past 1,000 here); one level past 10,000 is refused.
    const deep = `${'{"b": 1, "a": ['.repeat(4_999)}{}${']}'.repeat(4_999)}`;
    expect(canonicalJson(deep, 'data.json') === `${'{"a":['.repeat(4_999)}{}${'],"b":1}'.repeat(4_999)}`).toBe(true);
    expect(() => canonicalJson(`${'['.repeat(10_001)}${']'.repeat(10_001)}`, 'data.json')).toThrow(/nested too deep/);
  });
});
