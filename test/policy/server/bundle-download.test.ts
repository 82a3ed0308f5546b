import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompactSign } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { BundleConfigError, bundleConfigOf, readBundleConfig } from '../../../runtime/policy/server/bundle-config.js';
import { startPolicyServer } from '../../../runtime/policy/server/start-policy-server.js';
import { waitFor } from '../../support/net.js';
import { tarGz } from '../../support/tar.js';

// Bundles polled from a bundle server (a real HTTP server here) as OPA's bundle plugin polls them:
// ETag / 304, activation only of a whole verified bundle, a forged or broken download keeping the active one.

const work = mkdtempSync(join(tmpdir(), 'fw-bundle-download-'));
const SECRET = 'bundle-signing-secret';

/** A signed bundle archive (HS256) whose policy answers `allow` for `user`, with data `level`. */
async function signedArchive(revision: string, user: string, level: number, tamper?: (files: Record<string, string>) => void): Promise<Buffer> {
  const files: Record<string, string> = {
    '.manifest': `{"revision":"${revision}","roots":["authz"]}`,
    'authz/policy.rego': `package authz\n\ndefault allow := false\n\nallow if input.user == "${user}"\n`,
    'authz/data.json': `{"level":${level}}`,
  };
  const signed = Object.entries(files).map(([name, content]) => ({ name, hash: createHash('sha256').update(content).digest('hex'), algorithm: 'SHA-256' }));
  const token = await new CompactSign(new TextEncoder().encode(JSON.stringify({ files: signed })))
    .setProtectedHeader({ alg: 'HS256', kid: 'ci' })
    .sign(new TextEncoder().encode(SECRET));
  tamper?.(files);
  return tarGz(Object.entries({ ...files, '.signatures.json': JSON.stringify({ signatures: [token] }) }).map(([name, content]) => ({ name, content })));
}

/** The bundle server: answers what `serving` holds, with its ETag, and 304 when asked with that ETag. */
let serving: { status: number; body?: Buffer; etag?: string } = { status: 503 };
const seen: Array<{ auth: string | undefined; ifNoneMatch: string | undefined }> = [];
let bundleServer: Server;
afterAll(async () => {
  await new Promise((resolve) => bundleServer?.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

async function startBundleServer(): Promise<string> {
  bundleServer = createServer((req, res) => {
    seen.push({ auth: req.headers.authorization, ifNoneMatch: req.headers['if-none-match'] });
    if (req.url !== '/bundles/authz.tar.gz') return void res.writeHead(404).end();
    if (serving.etag !== undefined && req.headers['if-none-match'] === serving.etag) return void res.writeHead(304).end();
    res.writeHead(serving.status, serving.etag ? { ETag: serving.etag } : {}).end(serving.body ?? 'unavailable');
  });
  await new Promise<void>((resolve) => bundleServer.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(bundleServer.address() as { port: number }).port}`;
}

describe('bundles polled from a bundle server (--config-file)', () => {
  it('activates a verified download, sends its ETag back, keeps the active bundle on a forged or broken one', async () => {
    const url = await startBundleServer();
    const config = join(work, 'opa.yaml');
    writeFileSync(
      config,
      [
        'services:',
        '  acme:',
        `    url: ${url}`,
        '    credentials:',
        '      bearer:',
        '        token: s3cret',
        'bundles:',
        '  authz:',
        '    service: acme',
        '    resource: bundles/authz.tar.gz',
        '    polling: {min_delay_seconds: 1, max_delay_seconds: 1}',
        '    signing: {keyid: ci}',
        'keys:',
        `  ci: {algorithm: HS256, key: ${SECRET}}`,
        '',
      ].join('\n'),
    );
    const server = await startPolicyServer({ port: 0, watch: false, workers: 0, remoteBundles: readBundleConfig(config) });
    const decide = async (user: string) =>
      (await (await fetch(`${server.url}/v1/data/authz/allow`, { method: 'POST', body: JSON.stringify({ input: { user } }) })).json()) as { result?: boolean };
    const status = async () =>
      ((await (await fetch(`${server.url}/v1/status`)).json()) as { result: { bundles: { authz: Record<string, unknown> } } }).result.bundles.authz;
    try {
      // Nothing activated yet: the server answers, /health?bundles is 500 until the first download is in.
      await waitFor(async () => seen.length > 0, 'the first download');
      expect((await fetch(`${server.url}/health?bundles`)).status).toBe(500);
      expect(await status()).toMatchObject({
        active_revision: '',
        code: 'bundle_error',
        message: `bundle server answered 503 for ${url}/bundles/authz.tar.gz`,
      });
      expect(await decide('alice')).toEqual({});
      expect(seen[0]?.auth).toBe('Bearer s3cret');

      serving = { status: 200, body: await signedArchive('rev-1', 'alice', 1), etag: '"e1"' };
      await waitFor(async () => (await decide('alice')).result === true, 'rev-1 activated');
      expect(await status()).toMatchObject({ active_revision: 'rev-1' });
      expect((await status()).code).toBeUndefined();
      expect((await fetch(`${server.url}/health?bundles`)).status).toBe(200);
      // The next polls carry the ETag and get 304: nothing changes.
      const before = seen.length;
      await waitFor(async () => seen.length > before, 'a poll after activation');
      expect(seen.at(-1)?.ifNoneMatch).toBe('"e1"');

      // A forged download (data changed after signing) is refused; rev-1 keeps serving.
      serving = { status: 200, body: await signedArchive('rev-2', 'mallory', 1, (files) => (files['authz/data.json'] = '{"level":9}')), etag: '"e2"' };
      await waitFor(async () => String((await status()).message ?? '').includes('digest mismatch'), 'the forged download refused');
      expect((await status()).message).toMatch(/^authz\/data\.json: digest mismatch/);
      expect(await decide('alice')).toEqual({ result: true });
      expect(await decide('mallory')).toEqual({ result: false });
      expect(await status()).toMatchObject({ active_revision: 'rev-1' });

      // A download signed with another key is refused as well.
      const other = await new CompactSign(new TextEncoder().encode('{"files":[]}'))
        .setProtectedHeader({ alg: 'HS256' })
        .sign(new TextEncoder().encode('not the key'));
      serving = { status: 200, body: tarGz([{ name: '.signatures.json', content: JSON.stringify({ signatures: [other] }) }]), etag: '"e3"' };
      await waitFor(
        async () => String((await status()).message ?? '').startsWith('failed to verify the bundle signature'),
        'the wrongly signed download refused',
      );
      expect(await decide('alice')).toEqual({ result: true });

      // A good rev-2 is activated whole.
      serving = { status: 200, body: await signedArchive('rev-2', 'bob', 2), etag: '"e4"' };
      await waitFor(async () => (await status()).active_revision === 'rev-2', 'rev-2 activated');
      expect(await decide('bob')).toEqual({ result: true });
      expect(await decide('alice')).toEqual({ result: false });
      const data = (await (await fetch(`${server.url}/v1/data/authz/level`)).json()) as unknown;
      expect(data).toEqual({ result: 2 });

      // Signed but not compiling: refused at activation, rev-2 still serves.
      serving = { status: 200, body: await signedArchive('rev-3', 'eve"', 3), etag: '"e5"' };
      await waitFor(async () => String((await status()).message ?? '').includes('does not compile'), 'the broken download refused');
      expect(await decide('bob')).toEqual({ result: true });
      expect((await status()).active_revision).toBe('rev-2');
    } finally {
      await server.close();
    }
  }, 60_000);

  it('refuses configuration it would not follow, naming the field', () => {
    const refusal = (config: unknown) => {
      try {
        bundleConfigOf(config);
      } catch (error) {
        if (error instanceof BundleConfigError) return error.message;
        throw error;
      }
      return 'accepted';
    };
    expect(refusal({ services: { s: { url: 'ftp://x' } } })).toBe('services.s.url must be an http(s) URL');
    expect(refusal({ services: { s: { url: 'http://x' } }, bundles: { b: { service: 'nope' } } })).toBe('bundles.b.service names no configured service');
    expect(refusal({ services: { s: { url: 'http://x' } }, bundles: { b: { signing: { keyid: 'k' } } } })).toBe(
      'bundles.b.signing.keyid names no key in the keys section',
    );
    expect(refusal({ services: { s: { url: 'http://x', credentials: { oauth2: {} } } } })).toBe(
      'services.s.credentials: only bearer tokens are supported here',
    );
    expect(refusal({ distributed_tracing: {} })).toBe(
      'the configuration\'s "distributed_tracing" section is not supported here (services, bundles, keys, labels, decision_logs, status, persistence_directory, discovery)',
    );
    expect(refusal({ services: [{ name: 's', url: 'http://x/' }], bundles: { b: { trigger: 'manual' } } })).toBe('bundles.b.trigger is not supported here');
    // OPA's defaults: the only service, resource bundles/<name>, polling 60..120 s.
    expect(bundleConfigOf({ services: [{ name: 's', url: 'http://x/' }], bundles: { b: {} } })).toEqual([
      { name: 'b', url: 'http://x/bundles/b', headers: {}, minDelaySeconds: 60, maxDelaySeconds: 120 },
    ]);
  });
});
