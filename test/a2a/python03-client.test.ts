import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { venvPython } from '../support/python-venv.js';
import { makeKeys, probeAgent, runProbe, scratchDir, startStack, writeCard } from './support.js';

/**
 * The official Python A2A client of the 0.3 line (a2a-sdk 0.3.26, PyPI), which
 * sends no A2A-Version header and requires the 0.3 card's `url`: it reads the
 * card an agent serves by default and calls the agent, signed. Runs when
 * FRAMEWORK_A2A03_PYTHON is the python of a venv with that client (.ci/run makes it):
 *   python3 -m venv .venv-a2a03 && .venv-a2a03/bin/pip install 'a2a-sdk==0.3.26'
 */
const python = venvPython({ env: 'FRAMEWORK_A2A03_PYTHON', setup: "python3 -m venv .venv-a2a03 && .venv-a2a03/bin/pip install 'a2a-sdk==0.3.26'" });
const SCRIPT = fileURLToPath(new URL('./fixtures/a2a_python03_client.py', import.meta.url));

describe.skipIf(!python)('the official Python 0.3 A2A client (a2a-sdk 0.3.26) against an agent with default settings', () => {
  let stack: Awaited<ReturnType<typeof startStack>>;
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  let running: RunningAgent;
  let keys: ReturnType<typeof makeKeys>;

  beforeAll(async () => {
    stack = await startStack();
    scratch = await scratchDir();
    const card = await writeCard(scratch.dir, 'probe');
    await writeCard(scratch.dir, 'orchestrator');
    keys = makeKeys(['orchestrator', 'probe']);
    const built = probeAgent('probe');
    // Strict: the call is signed and checked by the Guardian, as between agents of a project.
    running = await runProbe(built.core, built.agent, {
      AGENT_CARD: card,
      A2A_KEYS: keys.json,
      A2A_VALIDATION_MODE: 'strict',
      GUARDIAN_URL: stack.guardian.url,
    });
  });

  afterAll(async () => {
    await running?.close();
    await stack?.close();
    await scratch?.remove();
  });

  it('reads the card served without A2A-Version (it has the 0.3 url) and gets its answer over JSON-RPC', async () => {
    const secret = (JSON.parse(keys.json) as { keys: { agent: string; secret: string }[] }).keys.find((k) => k.agent === 'orchestrator')!.secret;
    const { stdout } = await promisify(execFile)(python!, [SCRIPT, running.url, 'orchestrator', 'orchestrator-1', secret, 'probe'], { timeout: 60_000 });
    const seen = JSON.parse(stdout) as { url: string; preferredTransport: string; protocolVersion: string; answers: Record<string, any>[] };
    expect(seen.url).toBe(running.a2aUrl);
    expect(seen.preferredTransport).toBe('JSONRPC');
    expect(seen.protocolVersion).toBe('0.3.0');
    expect(JSON.stringify(seen.answers)).toContain('"outcome":"done"');
  });
});
