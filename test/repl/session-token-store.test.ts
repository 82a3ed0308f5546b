import { mkdtemp, readFile, rm, stat, writeFile, chmod } from 'node:fs/promises';
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
    await store.update('http://a', { plan_id: 'p1' });
    await store.update('http://missing', { plan_id: 'p2' });

    const again = new SessionTokenStore({ dir: join(dir, 'framework-cli') });
    expect(await again.get('http://a')).toMatchObject({ token: 't-a', plan_id: 'p1' });
    expect(await again.get('http://b')).toMatchObject({ token: 't-b', context_id: 'c' });
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

  it('treats a file that is not its own as empty and replaces it on save', async () => {
    const store = new SessionTokenStore({ dir });
    await writeFile(store.path, 'not json {');
    expect(await store.get('http://a')).toBeUndefined();
    await store.save('http://a', { token: 't', saved_at: 'now' });
    expect(JSON.parse(await readFile(store.path, 'utf8'))).toMatchObject({ version: 1, sessions: { 'http://a': { token: 't' } } });
  });
});
