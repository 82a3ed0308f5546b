import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CompactSign } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BUNDLE_LIMITS, type BundleLimits } from '../../../runtime/policy/server/bundle-archive.js';
import { BundleConfigError, bundleConfigOf } from '../../../runtime/policy/server/bundle-config.js';
import { startPolicyServer, type RunningPolicyServer } from '../../../runtime/policy/server/start-policy-server.js';
import { waitFor } from '../../support/net.js';
import { tarGz } from '../../support/tar.js';

// Persisted bundles (`persist: true`) as OPA's bundle plugin keeps them: <persistence_directory>/bundles/<name>/bundle.tar.gz,
// written after a snapshot is activated, read at start before the first download. The file is real, on disk, and the
// tests change it under the server: forged, unsigned, a link, a FIFO, too large; each is refused and nothing is served.

const work = mkdtempSync(join(tmpdir(), 'fw-bundle-persist-'));
const SECRET = 'persist-signing-secret';

/** A signed bundle (HS256) whose policy allows `user`; `tamper` changes a file after signing. */
async function signedArchive(revision: string, user: string, options: { tamper?: boolean; unsigned?: boolean } = {}): Promise<Buffer> {
  const files: Record<string, string> = {
    '.manifest': `{"revision":"${revision}","roots":["authz"]}`,
    'authz/policy.rego': `package authz\n\ndefault allow := false\n\nallow if input.user == "${user}"\n`,
  };
  const signed = Object.entries(files).map(([name, content]) => ({ name, hash: createHash('sha256').update(content).digest('hex'), algorithm: 'SHA-256' }));
  const token = await new CompactSign(new TextEncoder().encode(JSON.stringify({ files: signed })))
    .setProtectedHeader({ alg: 'HS256', kid: 'ci' })
    .sign(new TextEncoder().encode(SECRET));
  if (options.tamper) files['authz/policy.rego'] = 'package authz\n\nallow := true\n';
  if (!options.unsigned) files['.signatures.json'] = JSON.stringify({ signatures: [token] });
  return tarGz(Object.entries(files).map(([name, content]) => ({ name, content })));
}

/** What the bundle server answers; `hold` keeps each request open unanswered (until the server stops), so a test sees the persisted file's refusal, not the download's. */
let serving: { status: number; body?: Buffer; etag?: string; hold?: boolean } = { status: 503 };
const requests: Array<string | undefined> = [];
let bundleServer: Server;
let url: string;
beforeAll(async () => {
  bundleServer = createServer((req, res) => {
    requests.push(req.headers['if-none-match']);
    if (serving.hold) return;
    if (serving.etag !== undefined && req.headers['if-none-match'] === serving.etag) return void res.writeHead(304).end();
    res.writeHead(serving.status, serving.etag ? { ETag: serving.etag } : {}).end(serving.body ?? 'unavailable');
  });
  await new Promise<void>((resolve) => bundleServer.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(bundleServer.address() as { port: number }).port}`;
});
afterAll(async () => {
  bundleServer?.closeAllConnections();
  await new Promise((resolve) => bundleServer?.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

let round = 0;
/** A fresh persistence directory and the path of the bundle file in it. */
function persistence(): { directory: string; file: string } {
  const directory = join(work, `opa-${++round}`);
  mkdirSync(directory);
  return { directory, file: join(directory, 'bundles', 'authz', 'bundle.tar.gz') };
}

async function start(directory: string, options: { dir?: string; limits?: BundleLimits } = {}): Promise<RunningPolicyServer> {
  const remoteBundles = bundleConfigOf({
    services: { acme: { url } },
    persistence_directory: directory,
    // Polls 60..120 s apart: within a test, the only download is the one at start.
    bundles: { authz: { service: 'acme', persist: true, polling: { min_delay_seconds: 60, max_delay_seconds: 120 }, signing: { keyid: 'ci' } } },
    keys: { ci: { algorithm: 'HS256', key: SECRET } },
  });
  return startPolicyServer({
    port: 0,
    watch: false,
    workers: 0,
    remoteBundles,
    ...(options.dir ? { dir: options.dir } : {}),
    ...(options.limits ? { bundleLimits: options.limits } : {}),
  });
}

const allows = async (server: RunningPolicyServer, user: string) =>
  ((await (await fetch(`${server.url}/v1/data/authz/allow`, { method: 'POST', body: JSON.stringify({ input: { user } }) })).json()) as { result?: boolean })
    .result;
const status = async (server: RunningPolicyServer) =>
  ((await (await fetch(`${server.url}/v1/status`)).json()) as { result: { bundles: { authz: { active_revision: string; message?: string } } } }).result.bundles
    .authz;

/** Starts on a persisted file while the bundle server does not answer, and returns the reason it was refused (nothing served). */
async function refusedAtStart(directory: string, options: { dir?: string; limits?: BundleLimits } = {}): Promise<string> {
  serving = { status: 503, hold: true };
  const server = await start(directory, options);
  try {
    expect(await allows(server, 'alice')).toBeUndefined();
    expect((await status(server)).active_revision).toBe('');
    expect((await fetch(`${server.url}/health?bundles`)).status).toBe(500);
    return (await status(server)).message ?? '';
  } finally {
    await server.close();
  }
}

describe('persisted bundles (persist: true)', () => {
  it('keeps the activated download on disk and serves it at the next start before any download', async () => {
    const { directory, file } = persistence();
    const body = await signedArchive('rev-1', 'alice');
    serving = { status: 200, body, etag: '"e1"' };
    const first = await start(directory);
    try {
      await waitFor(async () => existsSync(file), 'the bundle persisted');
      expect(readFileSync(file)).toEqual(body);
      // Written through a temporary file renamed over: nothing else is left beside it.
      expect(readdirSync(join(directory, 'bundles', 'authz'))).toEqual(['bundle.tar.gz']);
      expect((await status(first)).active_revision).toBe('rev-1');
    } finally {
      await first.close();
    }

    // The bundle server is down: the persisted rev-1 answers from the start.
    serving = { status: 503 };
    const before = requests.length;
    const second = await start(directory);
    try {
      expect(await allows(second, 'alice')).toBe(true);
      expect(await allows(second, 'bob')).toBe(false);
      expect((await status(second)).active_revision).toBe('rev-1');
      await waitFor(async () => requests.length > before, 'the first download');
      // The download refused keeps the persisted bundle serving, and the file stays.
      expect(await allows(second, 'alice')).toBe(true);
      expect(readFileSync(file)).toEqual(body);
    } finally {
      await second.close();
    }
  });

  it('refuses a persisted file that is forged, unsigned, too large, a link, below a linked folder or a FIFO, and serves nothing from it', async () => {
    const good = await signedArchive('rev-1', 'alice');
    const place = (content: Buffer) => {
      const { directory, file } = persistence();
      mkdirSync(join(directory, 'bundles', 'authz'), { recursive: true });
      writeFileSync(file, content);
      return { directory, file };
    };

    expect(await refusedAtStart(place(await signedArchive('rev-1', 'alice', { tamper: true })).directory)).toMatch(
      /^persisted bundle .*bundle\.tar\.gz: authz\/policy\.rego: digest mismatch/,
    );
    expect(await refusedAtStart(place(await signedArchive('rev-1', 'alice', { unsigned: true })).directory)).toMatch(
      /^persisted bundle .*: bundle missing \.signatures\.json file$/,
    );
    expect(await refusedAtStart(place(good).directory, { limits: { ...DEFAULT_BUNDLE_LIMITS, maxArchiveBytes: 100 } })).toMatch(
      new RegExp(`bundle\\.tar\\.gz is ${good.length} bytes, more than the limit of 100$`),
    );

    // The file a link to a good bundle outside: refused, not followed.
    const outside = join(work, `outside-${round}.tar.gz`);
    writeFileSync(outside, good);
    const linked = persistence();
    mkdirSync(join(linked.directory, 'bundles', 'authz'), { recursive: true });
    symlinkSync(outside, linked.file);
    expect(await refusedAtStart(linked.directory)).toMatch(/bundle\.tar\.gz is a symbolic link; a persisted bundle is not read through one$/);

    // The `bundles` folder a link to a folder holding a good bundle.
    const elsewhere = join(work, `elsewhere-${round}`);
    mkdirSync(join(elsewhere, 'authz'), { recursive: true });
    writeFileSync(join(elsewhere, 'authz', 'bundle.tar.gz'), good);
    const folder = persistence();
    symlinkSync(elsewhere, join(folder.directory, 'bundles'));
    expect(await refusedAtStart(folder.directory)).toMatch(/\/bundles is a symbolic link; a persisted bundle is not read or written through one$/);

    // A FIFO in the file's place does not hold the start-up.
    const fifo = persistence();
    mkdirSync(join(fifo.directory, 'bundles', 'authz'), { recursive: true });
    execFileSync('mkfifo', [fifo.file]);
    expect(await refusedAtStart(fifo.directory)).toMatch(/bundle\.tar\.gz is not a regular file$/);
  });

  it('starts without a persisted bundle that does not compile with the other policies', async () => {
    const { directory } = (() => {
      const p = persistence();
      mkdirSync(join(p.directory, 'bundles', 'authz'), { recursive: true });
      return p;
    })();
    writeFileSync(join(directory, 'bundles', 'authz', 'bundle.tar.gz'), await signedArchive('rev-1', 'alice'));
    // A policy directory whose function conflicts with the bundle's rule `allow`.
    const policies = join(work, `policies-${round}`);
    mkdirSync(policies);
    writeFileSync(join(policies, 'other.rego'), 'package authz\n\nallow(x) if x\n');
    expect(await refusedAtStart(directory, { dir: policies })).toMatch(/^persisted bundle .*: it does not compile with the other policies/);
  });

  it('replaces a link put at the file on the next write, leaving its target alone', async () => {
    const { directory, file } = persistence();
    mkdirSync(join(directory, 'bundles', 'authz'), { recursive: true });
    const victim = join(work, `victim-${round}`);
    writeFileSync(victim, 'untouched');
    symlinkSync(victim, file);
    const body = await signedArchive('rev-2', 'bob');
    serving = { status: 200, body, etag: '"e2"' };
    const server = await start(directory);
    try {
      await waitFor(async () => (await status(server)).active_revision === 'rev-2', 'rev-2 activated');
      await waitFor(async () => !lstatSync(file).isSymbolicLink(), 'the link replaced');
      expect(readFileSync(file)).toEqual(body);
      expect(readFileSync(victim, 'utf8')).toBe('untouched');
    } finally {
      await server.close();
    }
  });

  it('reads persist and persistence_directory as OPA does, refusing what it cannot follow', () => {
    const refusal = (config: Record<string, unknown>) => {
      try {
        bundleConfigOf({ services: { s: { url: 'http://x' } }, ...config });
      } catch (error) {
        if (error instanceof BundleConfigError) return error.message;
        throw error;
      }
      return 'accepted';
    };
    expect(refusal({ bundles: { b: { persist: 'yes' } } })).toBe('bundles.b.persist must be true or false');
    expect(refusal({ bundles: { '../b': { persist: true } } })).toBe(
      'bundles.../b.persist: a persisted bundle\'s name must be a relative path of plain names (no "..", ".", empty parts or backslashes)',
    );
    expect(refusal({ bundles: { '../b': {} } })).toBe('accepted');
    expect(refusal({ persistence_directory: 5, bundles: { b: { persist: true } } })).toBe('persistence_directory must be a path');
    // OPA's default: .opa in the working directory.
    expect(bundleConfigOf({ services: { s: { url: 'http://x' } }, bundles: { b: { persist: true }, c: {} } })).toMatchObject([
      { name: 'b', persistDirectory: resolve('.opa') },
      { name: 'c' },
    ]);
    expect(bundleConfigOf({ services: { s: { url: 'http://x' } }, bundles: { c: {} } })[0]).not.toHaveProperty('persistDirectory');
  });
});
