import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { SessionTokenStore } from '../../repl/session-token-store.js';
import { createFixtureAgent, type Probe } from '../http/agent-fixture.js';
import { runAgent } from '../../runtime/agent/run-agent.js';

/** Token stores in fresh temporary folders for one test file, removed after it. */
export function tempTokenStores(): () => Promise<SessionTokenStore> {
  const dirs: string[] = [];
  afterAll(async () => {
    // maxRetries: a session's last token write can land while the folder is being removed (ENOTEMPTY).
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 5 })));
  });
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chat-tokens-'));
    dirs.push(dir);
    return new SessionTokenStore({ dir });
  };
}

/** The fixture agent's front door (no A2A) on a free port for the tests of one `describe`, closed after them. */
export function fixtureAgentServer(): { url: () => string; probe: () => Probe } {
  let running: RunningAgent | undefined;
  let probe: Probe | undefined;
  beforeAll(async () => {
    const fixture = createFixtureAgent();
    probe = fixture.probe;
    running = await runAgent(fixture.core, fixture.agent, { port: 0, a2a: false, env: { LOG_LEVEL: 'error' } });
  });
  afterAll(async () => {
    await running?.close();
  });
  return { url: () => running!.url, probe: () => probe! };
}
