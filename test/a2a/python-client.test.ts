import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { makeKeys, probeAgent, runProbe, scratchDir, startStack, writeCard } from './support.js';
import { startWebhookReceiver } from './webhook-receiver.js';
import { venvPython } from '../support/python-venv.js';

/**
 * The official Python A2A client (a2a-sdk 1.3.0, PyPI) against our agent,
 * over JSON-RPC and over HTTP+JSON, signing with our HMAC scheme. Runs when
 * FRAMEWORK_A2A_PYTHON is the python of a venv with the client (.ci/run makes it):
 *   python3 -m venv .venv-a2a && .venv-a2a/bin/pip install 'a2a-sdk[http-server,grpc]==1.3.0' uvicorn==0.54.0
 *   FRAMEWORK_A2A_PYTHON=.venv-a2a/bin/python npx vitest run test/a2a/python-client.test.ts
 * In CI (CI=true) a missing venv fails the test instead of skipping it.
 */
const python = venvPython({
  env: 'FRAMEWORK_A2A_PYTHON',
  setup: "python3 -m venv .venv-a2a && .venv-a2a/bin/pip install 'a2a-sdk[http-server,grpc]==1.3.0' uvicorn==0.54.0",
});
const SCRIPT = fileURLToPath(new URL('./fixtures/a2a_python_client.py', import.meta.url));

describe.skipIf(!python)('the official Python A2A client (a2a-sdk) against the agent', () => {
  let stack: Awaited<ReturnType<typeof startStack>>;
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let running: RunningAgent;
  let keys: ReturnType<typeof makeKeys>;

  beforeAll(async () => {
    stack = await startStack();
    scratch = await scratchDir();
    receiver = await startWebhookReceiver();
    const card = await writeCard(scratch.dir, 'probe', { capabilities: { streaming: true, pushNotifications: true } });
    await writeCard(scratch.dir, 'orchestrator');
    keys = makeKeys(['orchestrator', 'probe']);
    const built = probeAgent('probe');
    running = await runProbe(built.core, built.agent, {
      AGENT_CARD: card,
      A2A_KEYS: keys.json,
      A2A_VALIDATION_MODE: 'strict',
      GUARDIAN_URL: stack.guardian.url,
      A2A_PUSH_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`,
    });
  });

  afterAll(async () => {
    await running?.close();
    await receiver?.close();
    await stack?.close();
    await scratch?.remove();
  });

  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    it(`${binding}: send, stream, get, cancel, push config set/get/list/delete with delivery`, async () => {
      const hook = `/py-${binding === 'JSONRPC' ? 'rpc' : 'rest'}`;
      const secret = JSON.parse(keys.json).keys.find((k: { agent: string }) => k.agent === 'orchestrator').secret as string;
      const { stdout } = await promisify(execFile)(
        python!,
        [SCRIPT, running.url, binding, 'orchestrator', 'orchestrator-1', secret, 'probe', receiver.url(hook)],
        {
          timeout: 60_000,
          env: { PATH: process.env.PATH ?? '' },
        },
      );
      const seen = JSON.parse(stdout) as Record<string, unknown>;
      expect(seen).toEqual({
        send_state: 'TASK_STATE_COMPLETED',
        send_artifacts: ['result'],
        stream_events: [
          'task',
          'status_update:TASK_STATE_WORKING',
          'status_update:TASK_STATE_WORKING',
          'artifact_update',
          'artifact_update',
          'status_update:TASK_STATE_COMPLETED',
        ],
        get_matches: true,
        asked_state: 'TASK_STATE_INPUT_REQUIRED',
        push_created: true,
        push_get_url: receiver.url(hook),
        // The token is write-only: listed redacted, delivered in clear.
        push_list: ['[redacted]'],
        answered_state: 'TASK_STATE_COMPLETED',
        push_list_after_delete: 0,
        task_id: expect.any(String),
        canceled_state: 'TASK_STATE_CANCELED',
        unknown_task: 'TaskNotFoundError',
      });
      const delivered = await receiver.waitFor(hook, (d) => d.some((x) => JSON.stringify(x.body).includes('TASK_STATE_COMPLETED')));
      expect(delivered.every((d) => d.headers['x-a2a-notification-token'] === 'py-token')).toBe(true);
      expect(delivered.every((d) => JSON.stringify(d.body).includes(seen.task_id as string))).toBe(true);
    });
  }
});
