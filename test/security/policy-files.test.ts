import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort, waitFor } from '../support/net.js';
import { startService, type Service } from '../support/processes.js';

// Attack: `policy serve <dir>` watched file inodes (Node's recursive watcher
// on Linux), so it served the first `sed -i` edit and then none: a second
// `sed -i` and an in-place rewrite were never served, /health?bundles still
// 200. Editors that save by rename, sed -i, git checkout and ConfigMap link
// swaps all replace files, so a tightening edit could be silently ignored.
// Now every directory is watched, the contents are hashed again as a
// backstop, links are followed, and /health?bundles and /v1/status show the
// revision and the last reload error.

const policy = (version: number) => `package files\n\nversion := ${version}\n`;
const scratch = mkdtempSync(join(tmpdir(), 'fw-sec-policy-files-'));
const services: Service[] = [];

afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.stop()));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** `policy serve dir` as a child process; a recheck interval of 10 minutes leaves the watcher alone to notice edits. */
async function serve(dir: string, recheckMs = 600_000): Promise<Service> {
  const port = await freePort();
  const service = await startService({
    name: 'policy serve',
    args: ['policy', 'serve', dir, '--addr', `127.0.0.1:${port}`, '--recheck-interval', String(recheckMs)],
    port,
  });
  services.push(service);
  return service;
}

async function version(service: Service): Promise<unknown> {
  const response = await fetch(`${service.url}/v1/data/files/version`, { method: 'POST', body: '{}' });
  return ((await response.json()) as { result?: unknown }).result;
}

const served = (service: Service, expected: number) => waitFor(async () => (await version(service)) === expected, `version ${expected} to be served`, 10_000);

async function bundle(service: Service, path: string): Promise<{ status: number; policies: Record<string, any> }> {
  const response = await fetch(`${service.url}${path}`);
  const body = (await response.json()) as any;
  return { status: response.status, policies: path.startsWith('/v1/status') ? body.result.bundles.policies : body.bundles.policies };
}

describe('a policy folder edited under the server', () => {
  it('serves every sed -i edit, an in-place rewrite and a save by rename, and shows each revision', async () => {
    const dir = join(scratch, 'plain');
    mkdirSync(dir);
    const file = join(dir, 'files.rego');
    writeFileSync(file, policy(1));
    const service = await serve(dir);
    expect(await version(service)).toBe(1);
    const revisions = [(await bundle(service, '/health?bundles')).policies.active_revision];

    for (const next of [2, 3, 4]) {
      execFileSync('sed', ['-i', `s/version := ${next - 1}$/version := ${next}/`, file]);
      await served(service, next);
      revisions.push((await bundle(service, '/v1/status')).policies.active_revision);
    }
    writeFileSync(file, policy(5));
    await served(service, 5);
    writeFileSync(join(dir, '.files.rego.swp'), policy(6));
    renameSync(join(dir, '.files.rego.swp'), file);
    await served(service, 6);
    revisions.push((await bundle(service, '/health?bundles')).policies.active_revision);

    // Each revision is the hash of what was read: all different, each a SHA-256.
    expect(new Set(revisions).size).toBe(revisions.length);
    for (const revision of revisions) expect(revision).toMatch(/^[0-9a-f]{64}$/);
  });

  it('serves a git checkout and a file in a folder made after the start', async () => {
    const dir = join(scratch, 'git');
    mkdirSync(dir);
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir });
    writeFileSync(join(dir, 'files.rego'), policy(1));
    git('init', '-q');
    git('add', 'files.rego');
    git('commit', '-qm', 'one');
    writeFileSync(join(dir, 'files.rego'), policy(2));
    git('commit', '-qam', 'two');
    const service = await serve(dir);
    expect(await version(service)).toBe(2);
    git('checkout', '-q', 'HEAD~1', '--', 'files.rego');
    await served(service, 1);

    mkdirSync(join(dir, 'later'));
    writeFileSync(join(dir, 'later', 'more.rego'), 'package files\n\nmore := 1\n');
    await waitFor(
      async () => (await fetch(`${service.url}/v1/data/files/more`)).ok && (await (await fetch(`${service.url}/v1/data/files/more`)).json()).result === 1,
      'the new folder to be served',
      10_000,
    );
    execFileSync('sed', ['-i', 's/more := 1$/more := 2/', join(dir, 'later', 'more.rego')]);
    await waitFor(
      async () => (await (await fetch(`${service.url}/v1/data/files/more`)).json()).result === 2,
      'the edit in the new folder to be served',
      10_000,
    );
  });

  it('reports a broken edit on /health?bundles and /v1/status, keeps the last good set, and keeps the error after the fix', async () => {
    const dir = join(scratch, 'broken');
    mkdirSync(dir);
    const file = join(dir, 'files.rego');
    writeFileSync(file, policy(1));
    const service = await serve(dir);
    const good = (await bundle(service, '/v1/status')).policies.active_revision;
    execFileSync('sed', ['-i', 's/version := 1$/version := /', file]);
    await waitFor(async () => (await fetch(`${service.url}/health?bundles`)).status === 500, 'the broken edit to show', 10_000);
    const health = await bundle(service, '/health?bundles');
    expect(health.policies).toMatchObject({
      active_revision: good,
      last_reload: { ok: false },
      // OPA's two errors for a rule cut after `:=`: the parser's, then its hint.
      last_reload_error: {
        errors: [
          { location: { file: 'files.rego' }, message: 'unexpected eof token' },
          { location: { file: 'files.rego' }, message: 'unexpected eof token: expected rule value term (e.g., version := <VALUE> { ... })' },
        ],
      },
    });
    expect(await version(service)).toBe(1);

    execFileSync('sed', ['-i', 's/version := $/version := 2/', file]);
    await served(service, 2);
    const status = await bundle(service, '/v1/status');
    expect(status.status).toBe(200);
    expect(status.policies).toMatchObject({
      last_reload: { ok: true },
      last_reload_error: { errors: [{ code: 'rego_parse_error' }, { code: 'rego_parse_error' }] },
    });
    expect(status.policies.code).toBeUndefined();
    expect(status.policies.active_revision).not.toBe(good);
  });
});

describe('a Kubernetes ConfigMap volume', () => {
  /** The layout the kubelet writes: files are links through `..data`, a link to a timestamped folder, swapped by rename. */
  function configMap(dir: string, version: number): void {
    const folder = `..2026_01_01_00_00_00.${String(version).padStart(9, '0')}`;
    mkdirSync(join(dir, folder));
    writeFileSync(join(dir, folder, 'files.rego'), policy(version));
    symlinkSync(folder, join(dir, '..data_tmp'));
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    if (version > 1) rmSync(join(dir, `..2026_01_01_00_00_00.${String(version - 1).padStart(9, '0')}`), { recursive: true });
    else symlinkSync(join('..data', 'files.rego'), join(dir, 'files.rego'));
  }

  it('serves the linked files and every ..data swap', async () => {
    const dir = join(scratch, 'configmap');
    mkdirSync(dir);
    configMap(dir, 1);
    const service = await serve(dir);
    expect(await version(service)).toBe(1);
    configMap(dir, 2);
    await served(service, 2);
    configMap(dir, 3);
    await served(service, 3);
  });
});

describe('a policy folder reached through a link that is moved (a release switch)', () => {
  it('notices, by the hash recheck, what no watcher reports: the served path now names another folder', async () => {
    const base = join(scratch, 'releases');
    mkdirSync(join(base, 'release-1'), { recursive: true });
    mkdirSync(join(base, 'release-2'));
    writeFileSync(join(base, 'release-1', 'files.rego'), policy(1));
    writeFileSync(join(base, 'release-2', 'files.rego'), policy(2));
    symlinkSync('release-1', join(base, 'current'));
    const service = await serve(join(base, 'current'), 200);
    expect(await version(service)).toBe(1);
    // The watchers hold release-1's folder, which does not change: only reading the path again tells.
    symlinkSync('release-2', join(base, 'current-next'));
    renameSync(join(base, 'current-next'), join(base, 'current'));
    await served(service, 2);
  });
});
