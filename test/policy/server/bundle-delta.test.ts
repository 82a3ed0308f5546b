import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PolicyLoadError } from '../../../runtime/policy/server/policy-problem.js';
import { readBundleArchive } from '../../../runtime/policy/server/bundle-archive.js';
import { BundleSignatureError, verificationKey } from '../../../runtime/policy/server/bundle-signature.js';
import { bundleFromEntries } from '../../../runtime/policy/server/bundle.js';
import { startPolicyServer, type RunningPolicyServer } from '../../../runtime/policy/server/start-policy-server.js';
import { waitFor } from '../../support/net.js';
import { tarGz } from '../../support/tar.js';

// Delta bundles (a patch.json of upsert / remove / replace operations) downloaded from a bundle server (a real HTTP
// server here), as OPA's bundle plugin applies them to the active bundle's data; messages from OPA's bundle.go and store.go.

const work = mkdtempSync(join(tmpdir(), 'fw-bundle-delta-'));
let serving: { body: Buffer; etag: string } | undefined;
let bundleServer: Server | undefined;
afterAll(async () => {
  await new Promise((resolve) => (bundleServer ? bundleServer.close(resolve) : resolve(undefined)));
  rmSync(work, { recursive: true, force: true });
});

async function startBundleServer(): Promise<string> {
  bundleServer = createServer((req, res) => {
    if (serving === undefined) return void res.writeHead(404).end();
    if (req.headers['if-none-match'] === serving.etag) return void res.writeHead(304).end();
    res.writeHead(200, { ETag: serving.etag }).end(serving.body);
  });
  await new Promise<void>((resolve) => bundleServer?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(bundleServer.address() as { port: number }).port}`;
}

const POLICY = 'package authz\n\nallow if input.user in object.keys(data.authz.users)\n';
let etags = 0;

function snapshot(revision: string, users: Record<string, unknown>): Buffer {
  return tarGz([
    { name: '.manifest', content: JSON.stringify({ revision, roots: ['authz'] }) },
    { name: 'authz/policy.rego', content: POLICY },
    { name: 'authz/data.json', content: JSON.stringify({ users, limits: [1, 2] }) },
  ]);
}

function delta(revision: string, ops: unknown, extra: Array<{ name: string; content: string }> = [], roots: string[] = ['authz']): Buffer {
  return tarGz([{ name: '.manifest', content: JSON.stringify({ revision, roots }) }, { name: 'patch.json', content: JSON.stringify({ data: ops }) }, ...extra]);
}

describe('delta bundles (patch.json) from a bundle server', () => {
  let server: RunningPolicyServer;
  const status = async () =>
    ((await (await fetch(`${server.url}/v1/status`)).json()) as { result: { bundles: { authz: Record<string, unknown> } } }).result.bundles.authz;
  const data = async () => ((await (await fetch(`${server.url}/v1/data/authz`)).json()) as { result?: Record<string, unknown> }).result;
  const serve = (body: Buffer) => (serving = { body, etag: `"e${++etags}"` });
  /** Serves `body` and waits for the download to be refused with `message`; the active bundle is unchanged. */
  const refusedWith = async (body: Buffer, message: string) => {
    const before = await data();
    serve(body);
    await waitFor(async () => (await status()).message === message, `refusal: ${message}`);
    expect(await data()).toEqual(before);
  };

  it('patches the active data with upsert, replace and remove, and refuses bad patches with OPA messages', async () => {
    const url = await startBundleServer();
    server = await startPolicyServer({
      port: 0,
      watch: false,
      workers: 0,
      remoteBundles: [{ name: 'authz', url: `${url}/bundle.tar.gz`, headers: {}, minDelaySeconds: 0.1, maxDelaySeconds: 0.1 }],
    });
    try {
      serve(snapshot('rev-1', { alice: { role: 'admin' }, bob: { role: 'dev' } }));
      await waitFor(async () => (await status()).active_revision === 'rev-1', 'rev-1 activated');
      expect((await status()).type).toBe('snapshot');

      serve(
        delta('rev-2', [
          { op: 'upsert', path: '/authz/users/carol', value: { role: 'dev' } },
          { op: 'upsert', path: '/authz/teams/platform/lead', value: 'carol' }, // the objects above it are made
          { op: 'replace', path: '/authz/users/alice/role', value: 'owner' },
          { op: 'remove', path: '/authz/users/bob' },
          { op: 'upsert', path: '/authz/limits/-', value: 3 },
          { op: 'upsert', path: 'authz/a~1b~0c', value: true }, // no leading slash, and JSON pointer escapes
          { op: 'upsert', path: '/authz/__proto__/polluted', value: 1 }, // a key like any other, not the object's prototype
        ]),
      );
      await waitFor(async () => (await status()).active_revision === 'rev-2', 'rev-2 activated');
      expect(await status()).toMatchObject({ active_revision: 'rev-2', type: 'delta' });
      expect((await status()).code).toBeUndefined();
      expect(await data()).toEqual({
        users: { alice: { role: 'owner' }, carol: { role: 'dev' } },
        teams: { platform: { lead: 'carol' } },
        limits: [1, 2, 3],
        'a/b~c': true,
        ['__proto__']: { polluted: 1 },
      });
      // The policy of rev-1 still serves, over the patched data.
      const decide = async (user: string) =>
        (
          (await (await fetch(`${server.url}/v1/data/authz/allow`, { method: 'POST', body: JSON.stringify({ input: { user } }) })).json()) as {
            result?: boolean;
          }
        ).result;
      expect(await decide('carol')).toBe(true);
      expect(await decide('bob')).toBeUndefined();

      await refusedWith(delta('rev-3', [{ op: 'add', path: '/authz/x', value: 1 }]), 'patch.json: bad patch operation: add');
      await refusedWith(
        delta('rev-3', [{ op: 'remove', path: '/authz/users/nobody' }]),
        'storage_not_found_error: /authz/users/nobody: document does not exist',
      );
      // A key every object inherits is not there either.
      await refusedWith(
        delta('rev-3', [{ op: 'remove', path: '/authz/users/toString' }]),
        'storage_not_found_error: /authz/users/toString: document does not exist',
      );
      await refusedWith(
        delta('rev-3', [{ op: 'replace', path: '/authz/nothing/here', value: 1 }]),
        'storage_not_found_error: /authz/nothing: document does not exist',
      );
      await refusedWith(
        delta('rev-3', [{ op: 'upsert', path: '/other/x', value: 1 }]),
        "patch.json: manifest roots [authz] do not permit data patch at path 'other/x'",
      );
      await refusedWith(
        delta('rev-3', [{ op: 'upsert', path: '/authz/x', value: 1 }], [], ['authz', 'more']),
        "delta bundle 'authz' has wasm resolvers or manifest roots that are different from those in the store",
      );
      await refusedWith(
        delta('rev-3', [{ op: 'upsert', path: '/authz/x', value: 1 }], [{ name: 'authz/extra.rego', content: 'package authz\n\nx := 1\n' }]),
        'authz/authz/extra.rego: delta bundle expected to contain only patch file but policy files found',
      );
      await refusedWith(
        delta('rev-3', [{ op: 'upsert', path: '/authz/x', value: 1 }], [{ name: 'authz/data.json', content: '{"y": 1}' }]),
        'data: delta bundle expected to contain only patch file but data files found',
      );
      // Data where a rule is: OPA's path conflict check after the patches.
      await refusedWith(
        delta('rev-3', [{ op: 'upsert', path: '/authz/allow', value: true }]),
        '1 error occurred: authz/authz/policy.rego:3: rego_compile_error: conflicting rule for data path authz/allow found',
      );
      await refusedWith(
        tarGz([
          { name: '.manifest', content: '{"revision": "rev-3", "roots": ["authz"]}' },
          { name: 'patch.json', content: '{"data": {"op": "upsert"}}' },
        ]),
        'patch.json: bundle load failed on patch decode: "data" must be an array of patch operations',
      );
      expect(await status()).toMatchObject({ active_revision: 'rev-2', type: 'delta' });

      // A snapshot replaces the patched data whole.
      serve(snapshot('rev-4', { dave: {} }));
      await waitFor(async () => (await status()).active_revision === 'rev-4', 'rev-4 activated');
      expect(await data()).toEqual({ users: { dave: {} }, limits: [1, 2] });
      expect((await status()).type).toBe('snapshot');
    } finally {
      await server.close();
    }
  }, 60_000);

  it('refuses a delta bundle given as a path (nothing downloaded to patch) and an empty patch is a snapshot', async () => {
    const path = join(work, 'delta.tar.gz');
    writeFileSync(path, delta('d-1', [{ op: 'upsert', path: '/authz/x', value: 1 }]));
    const problems = await startPolicyServer({ port: 0, watch: false, workers: 0, bundles: [path] }).then(
      async (s) => {
        await s.close();
        return [];
      },
      (error: unknown) => (error instanceof PolicyLoadError ? error.problems.map((p) => p.message) : Promise.reject(error)),
    );
    expect(problems).toEqual(['a delta bundle (patch.json with operations) applies only to a bundle downloaded with --config-file']);
    const empty = join(work, 'empty-patch.tar.gz');
    writeFileSync(
      empty,
      tarGz([
        { name: '.manifest', content: '{"revision": "s-1", "roots": ["authz"]}' },
        { name: 'patch.json', content: '{"data": []}' },
        { name: 'authz/policy.rego', content: POLICY },
        { name: 'authz/data.json', content: '{"users": {"erin": {}}}' },
      ]),
    );
    const running = await startPolicyServer({ port: 0, watch: false, workers: 0, bundles: [empty] });
    try {
      const res = await fetch(`${running.url}/v1/data/authz/allow`, { method: 'POST', body: '{"input": {"user": "erin"}}' });
      expect(await res.json()).toEqual({ result: true });
    } finally {
      await running.close();
    }
  });

  it('verifies a delta bundle when signing is configured (OPA applies delta bundles unverified; here that fails closed)', async () => {
    const entries = await readBundleArchive(delta('d-1', [{ op: 'upsert', path: '/authz/x', value: 1 }]));
    const verification = verificationKey({ key: 'a shared secret', algorithm: 'HS256' });
    await expect(bundleFromEntries('authz', entries, { verification })).rejects.toThrow(new BundleSignatureError('bundle missing .signatures.json file'));
    expect((await bundleFromEntries('authz', entries)).delta).toHaveLength(1);
  });
});
