import { chmod, mkdir, mkdtemp, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionTokenStore } from '../../repl/session-token-store.js';

// The chat's saved session tokens are bearer credentials. Found: a token file
// readable by others went unnoticed; a symlinked configuration folder had its
// target chmod-ed; a lock file left by a dead run was obeyed forever.

describe('SessionTokenStore: permissions and stale locks', () => {
  let base: string;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'fw-tokens-sec-'));
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('warns when the token file was readable by others, and makes it 600', async () => {
    const warnings: string[] = [];
    const store = new SessionTokenStore({ dir: base, warn: (m) => warnings.push(m) });
    await store.save('http://a', { token: 't', saved_at: 'now' });
    await chmod(store.path, 0o644);
    expect(await store.get('http://a')).toMatchObject({ token: 't' });
    expect(warnings.join('\n')).toMatch(/readable by other users.*now 600/);
    expect((await stat(store.path)).mode & 0o777).toBe(0o600);
  });

  it('never changes the target of a symlinked configuration folder, but warns when it is open', async () => {
    const real = join(base, 'shared-dotfiles');
    await mkdir(real, { mode: 0o755 });
    await chmod(real, 0o755);
    await symlink(real, join(base, 'linked'));
    const warnings: string[] = [];
    const store = new SessionTokenStore({ dir: join(base, 'linked'), warn: (m) => warnings.push(m) });
    await store.save('http://a', { token: 't', saved_at: 'now' });
    expect((await stat(real)).mode & 0o777).toBe(0o755);
    expect(warnings.join('\n')).toMatch(/links to a folder other users can open/);
    expect((await stat(store.path)).mode & 0o777).toBe(0o600);
  });

  it('breaks a lock file left by a run that died, instead of waiting on it forever', async () => {
    const store = new SessionTokenStore({ dir: base });
    await writeFile(`${store.path}.lock`, 'left behind');
    const old = new Date(Date.now() - 60_000);
    await utimes(`${store.path}.lock`, old, old);
    await store.save('http://a', { token: 't', saved_at: 'now' });
    expect(await store.get('http://a')).toMatchObject({ token: 't' });
  });
});
