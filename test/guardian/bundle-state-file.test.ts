import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../runtime/core/errors/config-error.js';
import { bundleProblem, staleness } from '../../runtime/guardian/bundle-acceptance.js';
import { BundleNumbering } from '../../runtime/guardian/bundle-numbering.js';
import { BundleStateFile, bundleStateFileFromEnv } from '../../runtime/guardian/bundle-state-file.js';

// The newest bundle revision an agent used, kept across its restarts: never
// lowered (by another follower of the process, or another process sharing the
// file), written whole, and refused loudly when it cannot be read.

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fw-bundle-state-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const A = 'http://127.0.0.1:1/v1/bundles/policies';
const B = 'http://127.0.0.1:2/v1/bundles/policies';

describe('BundleStateFile', () => {
  it('keeps the highest revision per URL, whoever writes, and writes the file 0600 with no temporary left', async () => {
    const path = join(dir, 'run', 'policy-bundles.json');
    const one = new BundleStateFile({ path });
    const two = new BundleStateFile({ path });
    expect(one.read(A)).toBeUndefined();
    await one.record(A, { revision: 5, digest: 'd5' });
    await two.record(A, { revision: 3, digest: 'd3' });
    await two.record(B, { revision: 9, digest: 'd9' });
    // Many at once, from both: the highest wins.
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? one : two).record(A, { revision: 10 + i, digest: `d${10 + i}` })));
    expect(new BundleStateFile({ path }).read(A)).toEqual({ revision: 29, digest: 'd29' });
    expect(new BundleStateFile({ path }).read(B)).toEqual({ revision: 9, digest: 'd9' });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ version: 1 });
  });

  it('refuses a file that is not a state file, naming it and the way out', async () => {
    const path = join(dir, 'odd.json');
    await writeFile(path, '{"version":2,"bundles":{}}');
    expect(() => new BundleStateFile({ path }).read(A)).toThrow(ConfigError);
    expect(() => new BundleStateFile({ path }).read(A)).toThrow(/odd\.json is not a policy bundle state file .*fixed, or removed/);
  });

  it('is POLICY_BUNDLE_STATE_FILE, else .framework/run/policy-bundles.json under the working directory', () => {
    expect(bundleStateFileFromEnv({ POLICY_BUNDLE_STATE_FILE: '/srv/a/state.json' })).toBe('/srv/a/state.json');
    expect(bundleStateFileFromEnv({})).toBe(join(process.cwd(), '.framework/run/policy-bundles.json'));
  });
});

describe('accepting a verified bundle', () => {
  const now = Date.parse('2026-06-01T12:00:00Z');
  const fresh = { issuedAt: now - 1000, expiresAt: now + 59_000, now };
  it('refuses a rollback, a reused revision, a bundle from the future or expired; takes a replica’s number for the same modules', () => {
    const seen = { revision: 100, digest: 'new' };
    expect(bundleProblem({ revision: 99, digest: 'old', seen, ...fresh })).toMatch(/revision 99 is older than revision 100.*rollback/);
    expect(bundleProblem({ revision: 100, digest: 'other', seen, ...fresh })).toMatch(/two different bundles claim it/);
    expect(bundleProblem({ revision: 99, digest: 'new', seen, ...fresh })).toBeUndefined();
    expect(bundleProblem({ revision: 101, digest: 'newer', seen, ...fresh })).toBeUndefined();
    expect(bundleProblem({ revision: 101, digest: 'x', seen, issuedAt: now + 60_000, expiresAt: now + 120_000, now })).toMatch(/ahead of this agent's clock/);
    expect(bundleProblem({ revision: 101, digest: 'x', seen, issuedAt: now - 120_000, expiresAt: now - 60_000, now })).toMatch(/expired at/);
    expect(bundleProblem({ revision: 101, digest: 'x', seen, issuedAt: now, expiresAt: now, now })).toMatch(/before it was issued/);
  });

  it('calls a bundle stale past its signed expiry or its maximum age, whichever comes first', () => {
    expect(staleness({ issuedAt: now - 1000, expiresAt: now + 1000, now, maxAgeMs: 60_000 })).toBeUndefined();
    expect(staleness({ issuedAt: now - 1000, expiresAt: now, now, maxAgeMs: 60_000 })).toMatch(/expired/);
    expect(staleness({ issuedAt: now - 61_000, expiresAt: now + 1000, now, maxAgeMs: 60_000 })).toMatch(/signed it 61 s ago/);
  });
});

describe('BundleNumbering', () => {
  it('numbers new modules above the last, even when the clock stands still or goes back', () => {
    let clock = 1_000;
    const numbering = new BundleNumbering({ now: () => clock });
    const a = numbering.number([{ id: 'a.rego', raw: 'package a' }]);
    expect(numbering.number([{ id: 'a.rego', raw: 'package a' }])).toEqual(a);
    clock = 500;
    const b = numbering.number([{ id: 'b.rego', raw: 'package b' }]);
    expect(b.revision).toBe(a.revision + 1);
    expect(b.digest).not.toBe(a.digest);
  });
});
