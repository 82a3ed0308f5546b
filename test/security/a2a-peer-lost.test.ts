import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentConnection } from '../../runtime/a2a/agent-connection.js';
import { loadAgentCard } from '../../runtime/a2a/agent-card.js';
import { AgentNotReadyError } from '../../runtime/core/errors/agent-not-ready-error.js';
import { makeKeys, scratchDir, writeCard } from '../a2a/support.js';
import { answers, freePort, waitFor } from '../support/net.js';

// A peer killed in the middle of a streamed call used to reach the caller as
// the SDK's bare stream error (reported as internal_error). The caller now
// gets AgentNotReadyError saying the connection to that agent was lost.

const PEER = fileURLToPath(new URL('./fixtures/stalling-peer.mjs', import.meta.url));

let scratch: Awaited<ReturnType<typeof scratchDir>>;
let peer: ChildProcess;
let output = '';
let port: number;
const keys = makeKeys(['caller', 'peer']);

beforeAll(async () => {
  scratch = await scratchDir();
  port = await freePort();
  const card = await writeCard(scratch.dir, 'peer', { url: `http://127.0.0.1:${port}/` });
  peer = spawn(process.execPath, [PEER], {
    env: { PATH: process.env.PATH ?? '', PEER_PORT: String(port), AGENT_CARD: card, A2A_KEYS: keys.json, A2A_VALIDATION_MODE: 'disabled', LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  peer.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  peer.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await waitFor(async () => {
    if (peer.exitCode !== null) throw new Error(`peer exited early:\n${output}`);
    return answers(`http://127.0.0.1:${port}/health`);
  }, 'the stalling peer');
});

afterAll(async () => {
  if (peer && peer.exitCode === null && peer.signalCode === null) peer.kill('SIGKILL');
  await scratch?.remove();
});

describe('a peer killed mid-call', () => {
  it('gives the caller AgentNotReadyError naming the lost connection, not an internal error', async () => {
    const [callerCard] = await loadAgentCard(await writeCard(scratch.dir, 'caller'));
    const [peerCard] = await loadAgentCard(`${scratch.dir}/peer.json`);
    const stream = agentConnection(callerCard, peerCard, 'work', {
      env: { A2A_KEYS: keys.json, A2A_VALIDATION_MODE: 'disabled' },
    });
    const first = await stream.next();
    expect(first.done).toBe(false);
    const exited = new Promise((resolve) => peer.once('exit', resolve));
    peer.kill('SIGKILL');
    await exited;
    const error = await (async () => {
      for (let next = await stream.next(); !next.done; next = await stream.next());
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentNotReadyError);
    expect((error as AgentNotReadyError).code).toBe('agent_not_ready');
    expect((error as Error).message).toMatch(/connection to peer lost/);
  });
});
