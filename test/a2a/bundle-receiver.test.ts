import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermissionError } from '../../runtime/a2a/errors/permission-error.js';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { AuditListResponseSchema } from '../../runtime/guardian/guardian-responses.js';
import { makeKeys, message, probeAgent, runProbe, scratchDir, sdkClient, startStack, writeCard } from './support.js';

// The receiving agent's request guard with A2A_DECISIONS=local: it decides
// from the Guardian's signed bundle in process, refuses a caller the policy
// does not allow exactly as in Guardian mode (same 403 reason), and its
// decisions reach the Guardian's audit trail as `checked_by: server`.

const keys = makeKeys(['guardian', 'orchestrator', 'weather', 'probe']);
let stack: Awaited<ReturnType<typeof startStack>>;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let running: RunningAgent;

beforeAll(async () => {
  stack = await startStack({ bundleKey: keys.keys.get('guardian')! });
  scratch = await scratchDir();
  const card = await writeCard(scratch.dir, 'probe');
  const built = probeAgent('probe');
  running = await runProbe(built.core, built.agent, {
    AGENT_CARD: card,
    A2A_KEYS: keys.json,
    A2A_VALIDATION_MODE: 'strict',
    GUARDIAN_URL: stack.guardian.url,
    A2A_DECISIONS: 'local',
  });
});

afterAll(async () => {
  await running?.close();
  await stack?.close();
  await scratch?.remove();
});

const send = (text: string) => ({ tenant: '', message: message(text), configuration: undefined, metadata: undefined });

describe('a receiving agent deciding from the bundle', () => {
  it('admits an allowed caller and refuses another with the Guardian reason, and ships both decisions', async () => {
    const orchestrator = await sdkClient(running.url, { source: 'orchestrator', target: 'probe', key: keys.keys.get('orchestrator') });
    const answer = await orchestrator.sendMessage(send('result please'));
    expect('status' in answer).toBe(true);
    const weather = await sdkClient(running.url, { source: 'weather', target: 'probe', key: keys.keys.get('weather') });
    const refusal = await weather.sendMessage(send('result please')).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(PermissionError);
    expect((refusal as PermissionError).reason).toBe('refused by probe: Agent "weather" may not call agent "probe": no policy rule allows this agent pair');
    // Closing the agent delivers its pending decision logs first (no wait here: they must be there once close resolves).
    await running.close();
    const { events } = AuditListResponseSchema.parse(await (await fetch(`${stack.guardian.url}/v1/audit?limit=1000`)).json());
    const server = events.filter((e) => e.checked_by === 'server' && e.target === 'probe');
    // Denials are shipped first, so compare in a fixed order.
    expect(server.map((e) => [e.source, e.decision, e.reason]).sort()).toEqual([
      ['orchestrator', 'allowed', 'allowed by policy'],
      ['weather', 'denied', 'no policy rule allows this agent pair'],
    ]);
  });
});
