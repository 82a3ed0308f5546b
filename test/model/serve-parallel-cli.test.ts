import { spawn } from 'node:child_process';
import { Ollama } from 'ollama';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { freePort } from '../support/net.js';
import { CLI, REPO_ROOT } from '../support/processes.js';
import { defaultModelStore } from './support/default-model.js';

describe('model serve --parallel', () => {
  it('refuses a bad --parallel or OLLAMA_NUM_PARALLEL with a clear error', async () => {
    const flag = await runCli(['model', 'serve', '--addr', '127.0.0.1:0', '--parallel', '0']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/parallel/);
    const env = await runCli(['model', 'serve', '--addr', '127.0.0.1:0'], { env: { OLLAMA_NUM_PARALLEL: 'many' } });
    expect(env.code).toBe(1);
    expect(env.stderr).toMatch(/OLLAMA_NUM_PARALLEL.*"many"/);
  });

  it('with --parallel 1 runs one request at a time: the second starts after the first is done', async () => {
    const { store } = await defaultModelStore();
    const port = await freePort();
    const child = spawn(process.execPath, [CLI, 'model', 'serve', '--addr', `127.0.0.1:${port}`, '--parallel', '1', '--json'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', FRAMEWORK_MODELS_DIR: store.dir },
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: false,
    });
    const closed = new Promise((resolve) => child.once('close', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('"listening"')) resolve();
        });
        child.once('close', (code) => reject(new Error(`model serve exited with ${String(code)}: ${out}`)));
      });
      const client = new Ollama({ host: `http://127.0.0.1:${port}` });
      const events: string[] = [];
      const stream = async (label: string) => {
        const parts = await client.chat({
          model: 'smollm2',
          messages: [{ role: 'user', content: 'Count to ten.' }],
          stream: true,
          options: { temperature: 0, num_predict: 6 },
        });
        for await (const part of parts) events.push(part.done ? `${label}:done` : `${label}:token`);
      };
      await Promise.all([stream('a'), stream('b')]);
      // One sequence: whichever ran first was done before the other produced anything.
      const [first] = events[0]!.split(':');
      const firstDone = events.indexOf(`${first}:done`);
      expect(events.slice(0, firstDone + 1).every((e) => e.startsWith(`${first}:`))).toBe(true);
    } finally {
      child.kill('SIGTERM');
      await closed;
    }
  }, 180_000);
});
