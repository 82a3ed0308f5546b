/**
 * End to end: the tutorial planner delegates over A2A to the executor, every
 * piece a real process (policy engine, Guardian, executor, planner), strict
 * validation, signed requests. Run `npm run build` first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectSse } from '../support/sse-client.js';
import {
  auditLines,
  createWorkspace,
  freePort,
  Processes,
  startGuardianProcess,
  startPolicyEngine,
  testKey,
  waitForAuditLines,
  type Service,
  type Workspace,
} from './a2a-support.js';

const processes = new Processes();
let workspace: Workspace;
let guardian: Service;
let executor: Service;
let planner: Service;

beforeAll(async () => {
  const [plannerPort, executorPort] = [await freePort(), await freePort()];
  workspace = await createWorkspace({
    ports: { planner: plannerPort, executor: executorPort },
    keys: [testKey('planner-1', 'planner'), testKey('executor-1', 'executor')],
  });
  const policy = await startPolicyEngine(processes);
  guardian = await startGuardianProcess(processes, policy.url);
  const common = {
    A2A_KEYS_FILE: workspace.keysFile,
    A2A_VALIDATION_MODE: 'strict',
    GUARDIAN_URL: guardian.url,
    A2A_ENABLE_AUDIT_LOG: 'true',
  };
  executor = await processes.start({
    name: 'executor',
    port: executorPort,
    args: ['serve', 'agent', '--example', 'executor', '--a2a-only', '--port', String(executorPort)],
    env: { ...common, AGENT_CARD: workspace.cardPath('executor') },
  });
  planner = await processes.start({
    name: 'planner',
    port: plannerPort,
    args: ['serve', 'agent', '--example', 'planner', '--port', String(plannerPort)],
    env: { ...common, AGENT_CARD: workspace.cardPath('planner'), EXECUTOR_CARD: workspace.cardPath('executor') },
  });
}, 60_000);

afterAll(async () => {
  await processes.stopAll();
  expect(processes.allStopped()).toBe(true);
  await workspace?.remove();
});

describe('planner → executor over A2A, as processes (strict, signed)', () => {
  it('delegates each action and streams the statuses and the result', async () => {
    const { events, status, headers } = await collectSse(`${planner.url}/stream`, {
      body: { query: 'Book the room; send the invitations' },
      timeoutMs: 15_000,
    });
    expect(status).toBe(200);
    expect(headers.get('content-type')).toMatch(/^text\/event-stream/);
    const statuses = events.filter((e) => e.event === 'status').map((e) => e.data);
    expect(statuses).toEqual(
      expect.arrayContaining([
        expect.stringContaining('Delegating step 1/2 to the executor: Book the room'),
        expect.stringContaining('Delegating step 2/2 to the executor: send the invitations'),
      ]),
    );
    expect(statuses.findIndex((s) => s.includes('step 1/2'))).toBeLessThan(statuses.findIndex((s) => s.includes('step 2/2')));
    const results = events.filter((e) => e.event === 'result');
    expect(results).toHaveLength(1);
    expect(JSON.parse(results[0]!.data)).toEqual({
      actions: ['Book the room', 'send the invitations'],
      outcomes: ['Done: Book the room', 'Done: send the invitations'],
    });
    expect(events.some((e) => e.event === 'error')).toBe(false);
  });

  it('records allowed decisions on both sides: the planner as client, the executor as server, the Guardian in between', async () => {
    const clientSide = (await waitForAuditLines(planner, 2)).filter((line) => line.target === 'executor');
    const serverSide = await waitForAuditLines(executor, 2);
    expect(clientSide).toEqual([
      expect.objectContaining({ source: 'planner', target: 'executor', decision: 'allowed', checked_by: 'client', reason: 'allowed by policy' }),
      expect.objectContaining({ source: 'planner', target: 'executor', decision: 'allowed', checked_by: 'client', reason: 'allowed by policy' }),
    ]);
    expect(serverSide).toEqual([
      expect.objectContaining({ source: 'planner', target: 'executor', decision: 'allowed', checked_by: 'server' }),
      expect.objectContaining({ source: 'planner', target: 'executor', decision: 'allowed', checked_by: 'server' }),
    ]);
    // Both sides hashed the same message for the same hop.
    expect(serverSide.map((line) => line.message_sha256)).toEqual(clientSide.map((line) => line.message_sha256));
    const decided = auditLines(guardian.output()).filter((line) => line.source === 'planner' && line.target === 'executor');
    expect(decided).toHaveLength(4);
    expect(decided.every((line) => line.decision === 'allowed' && line.checked_by === 'guardian')).toBe(true);
    // No refusals anywhere.
    for (const service of [planner, executor, guardian]) {
      expect(auditLines(service.output()).filter((line) => line.decision !== 'allowed')).toEqual([]);
    }
  });

  it('serves the executor by A2A only: no front door, but its card with the real port', async () => {
    const stream = await fetch(`${executor.url}/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"x"}' });
    expect(stream.status).toBe(404);
    await stream.body?.cancel();
    const card = (await (await fetch(`${executor.url}/.well-known/agent-card.json`)).json()) as { name: string; supportedInterfaces: Array<{ url: string }> };
    expect(card.name).toBe('executor');
    expect(card.supportedInterfaces[0]?.url).toBe(`${executor.url}/`);
  });

  it('proposes a plan in a session, waits, and on approval has the executor run it over A2A', async () => {
    const session = (await (
      await fetch(`${planner.url}/session/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    ).json()) as { session_token: string };
    const post = async (query: string) =>
      (await (
        await fetch(`${planner.url}/query`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${session.session_token}` },
          body: JSON.stringify({ query, event_format: 'json' }),
        })
      ).json()) as { events: { event: string; data: Record<string, unknown> }[]; result: Record<string, unknown> | null };
    const executorLinesBefore = auditLines(executor.output()).length;
    const proposal = await post('Reserve the room; print the agenda');
    expect(proposal.events.map((e) => e.event)).toEqual(['status', 'input_required']);
    expect(proposal.events[1]?.data.action_type).toBe('plan_confirmation');
    expect(auditLines(executor.output())).toHaveLength(executorLinesBefore);

    const approval = await post('yes, go ahead');
    expect(approval.events.filter((e) => e.event === 'status').map((e) => e.data.text)).toEqual([
      'Step 1/2: Reserve the room',
      'Delegating step 1/2 to the executor: Reserve the room',
      'Step 2/2: print the agenda',
      'Delegating step 2/2 to the executor: print the agenda',
    ]);
    expect(approval.result).toEqual({ actions: ['Reserve the room', 'print the agenda'], outcomes: ['Done: Reserve the room', 'Done: print the agenda'] });
    await waitForAuditLines(executor, executorLinesBefore + 2);
  });
});
