import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { followFiles, lastLines } from '../../runtime/supervisor/log-tail.js';
import { clearRunState, isAlive, livePids, readRunState, writeRunState } from '../../runtime/supervisor/run-state.js';
import { waitFor } from '../support/net.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));
async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fw-logs-'));
  dirs.push(dir);
  return dir;
}

describe('lastLines / followFiles', () => {
  it('returns the last N lines, reading a large file from its end', async () => {
    const file = join(await scratch(), 'big.log');
    await writeFile(file, Array.from({ length: 20_000 }, (_, i) => `line ${i} ${'x'.repeat(20)}`).join('\n') + '\n');
    expect(lastLines({ file, lines: 3 })).toEqual([19_997, 19_998, 19_999].map((i) => `line ${i} ${'x'.repeat(20)}`));
    expect(lastLines({ file, lines: 0 })).toEqual([]);
    expect(lastLines({ file: join(tmpdir(), 'no-such-file.log'), lines: 5 })).toEqual([]);
  });

  it('follows appended lines of several files until aborted, and starts over on a truncated file', async () => {
    const dir = await scratch();
    const [a, b] = [join(dir, 'a.log'), join(dir, 'b.log')];
    await writeFile(a, 'old\n');
    const seen: string[] = [];
    const controller = new AbortController();
    const following = followFiles({
      files: [
        { name: 'a', file: a },
        { name: 'b', file: b },
      ],
      signal: controller.signal,
      intervalMs: 20,
      onLine: (name, line) => seen.push(`${name}:${line}`),
    });
    await appendFile(a, 'one\ntw');
    await appendFile(b, 'first\n');
    await waitFor(async () => seen.length === 2, 'two lines');
    await appendFile(a, 'o\n');
    await waitFor(async () => seen.length === 3, 'the completed line');
    await writeFile(a, 'new\n');
    await waitFor(async () => seen.length === 4, 'the line of the new file');
    controller.abort();
    await following;
    expect(seen.sort()).toEqual(['a:new', 'a:one', 'a:two', 'b:first']);
  });
});

describe('run state', () => {
  it('writes, reads and clears state.json; tells live pids from dead ones', async () => {
    const root = await scratch();
    expect(readRunState({ root })).toBeUndefined();
    writeRunState({
      root,
      state: {
        supervisorPid: process.pid,
        startedAt: new Date().toISOString(),
        services: [{ name: 'x', pid: 2 ** 22 + 12345, port: 1, url: 'http://127.0.0.1:1', log: 'x.log' }],
      },
    });
    const state = readRunState({ root })!;
    expect(state).toMatchObject({ supervisorPid: process.pid, status: 'healthy', services: [{ name: 'x', state: 'healthy', restarts: 0 }] });
    expect(isAlive(process.pid)).toBe(true);
    expect(isAlive(2 ** 22 + 12345)).toBe(false);
    expect(livePids(state)).toEqual([process.pid]);
    clearRunState({ root });
    expect(readRunState({ root })).toBeUndefined();
  });
});
