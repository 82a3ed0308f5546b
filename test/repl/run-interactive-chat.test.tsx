import { EventEmitter } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, afterEach, expect, it, vi } from 'vitest';
import { ChatSession } from '../../repl/chat-session.js';
import { runInteractiveChat } from '../../repl/run-interactive-chat.js';
import { SessionTokenStore } from '../../repl/session-token-store.js';
import { freePort } from '../support/net.js';

/** A terminal's input as Ink reads it: a TTY in raw mode, read on `readable`. */
class FakeTtyIn extends EventEmitter {
  readonly isTTY = true;
  #pending: string[] = [];
  setRawMode(): this {
    return this;
  }
  setEncoding(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  resume(): this {
    return this;
  }
  pause(): this {
    return this;
  }
  read(): string | null {
    return this.#pending.shift() ?? null;
  }
  type(data: string): void {
    this.#pending.push(data);
    this.emit('readable');
  }
}

/** A terminal's output: everything written, in order. */
class FakeTtyOut extends EventEmitter {
  readonly isTTY = true;
  readonly columns = 100;
  readonly rows = 40;
  written = '';
  write(chunk: string): boolean {
    this.written += chunk;
    return true;
  }
}

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

afterEach(() => {
  vi.unstubAllEnvs();
});

it('runInteractiveChat renders the chat on the given terminal and resolves when the user quits', async () => {
  // Even with CI set (Ink would otherwise draw only the final frame): at a terminal the prompt must show.
  vi.stubEnv('CI', 'true');
  const dir = await mkdtemp(join(tmpdir(), 'run-chat-'));
  dirs.push(dir);
  const url = `http://127.0.0.1:${await freePort()}`;
  const stdin = new FakeTtyIn();
  const stdout = new FakeTtyOut();
  const done = runInteractiveChat({
    session: new ChatSession({ agentUrl: url, store: new SessionTokenStore({ dir }) }),
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: stdout as unknown as NodeJS.WriteStream,
  });
  const shown = () => stripVTControlCharacters(stdout.written);
  await vi.waitFor(() => expect(shown()).toContain('Is the agent running?'), { timeout: 10_000 });
  await vi.waitFor(() => expect(shown()).toContain('Type a message'), { timeout: 5_000 });
  expect(process.env.CI).toBe('true');

  // Ctrl-C at the prompt quits (Ink's own Ctrl-C handling is off, the app's is on).
  stdin.type('\u0003');
  await expect(done).resolves.toBeUndefined();
});
