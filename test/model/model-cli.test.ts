import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelStore } from '../../runtime/model/model-store.js';
import { pullModel } from '../../runtime/model/pull-model.js';
import { runCli } from '../support/cli.js';
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
