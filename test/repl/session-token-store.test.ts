import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionTokenStore } from '../../repl/session-token-store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fw-tokens-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('SessionTokenStore', () => {
  it('keeps one session per agent URL in a file only its owner can read', async () => {
    const store = new SessionTokenStore({ dir: join(dir, 'framework-cli') });
    expect(await store.get('http://a')).toBeUndefined();
    await store.save('http://a', { token: 't-a', saved_at: '2026-01-01T00:00:00.000Z' });
    await store.save('http://b', { token: 't-b', saved_at: '2026-01-01T00:00:00.000Z', context_id: 'c' });
    await store.update('http://a', 't-a', { plan_id: 'p1' });
    await store.update('http://missing', 't-x', { plan_id: 'p2' });
    // A run still on an older session does not mark the newer one.
    await store.update('http://b', 't-old', { plan_id: 'p-old' });

    const again = new SessionTokenStore({ dir: join(dir, 'framework-cli') });
    expect(await again.get('http://a')).toMatchObject({ token: 't-a', plan_id: 'p1' });
    expect(await again.get('http://b')).toEqual({ token: 't-b', context_id: 'c', saved_at: '2026-01-01T00:00:00.000Z' });
    expect(await again.get('http://missing')).toBeUndefined();
    expect((await stat(store.path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'framework-cli'))).mode & 0o777).toBe(0o700);

    await again.delete('http://a');
    expect(await store.get('http://a')).toBeUndefined();
    expect(await store.get('http://b')).toBeDefined();
  });

  it('narrows a file that was readable by others back to 0600 on the next save', async () => {
    const store = new SessionTokenStore({ dir });
    await store.save('http://a', { token: 't', saved_at: 'now' });
    await chmod(store.path, 0o644);
    await store.save('http://a', { token: 't2', saved_at: 'now' });
    expect((await stat(store.path)).mode & 0o777).toBe(0o600);
  });

  it('makes an existing folder user-only, and never writes through a symlink planted beside the file', async () => {
    const folder = join(dir, 'config');
    await mkdir(folder, { mode: 0o755 });
    await chmod(folder, 0o755);
    const store = new SessionTokenStore({ dir: folder });
    const victim = join(dir, 'victim');
    await writeFile(victim, 'untouched');
    await chmod(victim, 0o644);
    await symlink(victim, store.path);
    await store.save('http://a', { token: 'SECRET', saved_at: 'now' });
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    expect(await readFile(victim, 'utf8')).toBe('untouched');
    expect((await stat(victim)).mode & 0o777).toBe(0o644);
    expect(JSON.parse(await readFile(store.path, 'utf8')).sessions['http://a'].token).toBe('SECRET');
    expect((await stat(store.path)).mode & 0o777).toBe(0o600);
  });

  it('works in a configuration folder that is a symlink to a real one', async () => {
    const real = join(dir, 'real');
    await mkdir(real);
    await symlink(real, join(dir, 'linked'));
    const store = new SessionTokenStore({ dir: join(dir, 'linked') });
    await store.save('http://a', { token: 't', saved_at: 'now' });
    expect(await new SessionTokenStore({ dir: real }).get('http://a')).toMatchObject({ token: 't' });
  });

  it('keeps every entry when many saves run at once, in one process or several stores', async () => {
    const stores = [new SessionTokenStore({ dir }), new SessionTokenStore({ dir })];
    await Promise.all(Array.from({ length: 20 }, (_, i) => stores[i % 2]!.save(`http://agent-${i}`, { token: `t${i}`, saved_at: 'now' })));
    const file = JSON.parse(await readFile(stores[0]!.path, 'utf8')) as { sessions: Record<string, unknown> };
    expect(Object.keys(file.sessions).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `http://agent-${i}`).sort());
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp') || name.endsWith('.lock'))).toEqual([]);
  });

  it('treats a file that is not its own as empty and replaces it on save', async () => {
    const store = new SessionTokenStore({ dir });
    await writeFile(store.path, 'not json {');
    expect(await store.get('http://a')).toBeUndefined();
    await store.save('http://a', { token: 't', saved_at: 'now' });
    expect(JSON.parse(await readFile(store.path, 'utf8'))).toMatchObject({ version: 1, sessions: { 'http://a': { token: 't' } } });
  });
});
