import type { AgentCard } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AResponse } from '../../runtime/a2a/a2a-response.js';
import { cardFromConfig } from '../../runtime/a2a/agent-card.js';
import { agentConnection } from '../../runtime/a2a/agent-connection.js';
import { AgentInteractionFlow, InteractionFlowNode, NODE_LABEL_LENGTH, type FlowChunk } from '../../runtime/a2a/interaction-flow.js';
import { PermissionError } from '../../runtime/a2a/errors/permission-error.js';
import { SignatureError } from '../../runtime/a2a/errors/signature-error.js';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import { collect, makeKeys, probeAgent, runProbe, scratchDir, startStack, writeCard, type Probe } from './support.js';

let stack: Awaited<ReturnType<typeof startStack>>;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let running: RunningAgent;
let probe: Probe;
let target: AgentCard;
let env: Record<string, string>;
let keys: ReturnType<typeof makeKeys>;
const card = (name: string) => cardFromConfig({ name, description: `${name} agent`, version: '1.0.0', url: 'http://127.0.0.1:1/' });

beforeAll(async () => {
  stack = await startStack();
  scratch = await scratchDir();
  // "database": the example policy lets the orchestrator call it, but not the planner or "untrusted".
  const cardPath = await writeCard(scratch.dir, 'database');
  keys = makeKeys(['orchestrator', 'planner', 'untrusted']);
  const built = probeAgent('database');
  probe = built.probe;
  running = await runProbe(built.core, built.agent, {
    AGENT_CARD: cardPath,
    A2A_KEYS: keys.json,
    A2A_VALIDATION_MODE: 'strict',
    GUARDIAN_URL: stack.guardian.url,
  });
  target = running.card!;
  // What the callers' side reads: the same keys, the same Guardian, strict mode.
  env = { A2A_KEYS: keys.json, A2A_VALIDATION_MODE: 'strict', GUARDIAN_URL: stack.guardian.url };
});

afterAll(async () => {
  await running?.close();
  await stack?.close();
  await scratch?.remove();
});

describe('InteractionFlowNode', () => {
  it('labels a node with the first 40 characters of its task by default', () => {
    const task = 'Book the large meeting room on the third floor for Tuesday';
    const node = new InteractionFlowNode({ task, targetAgentCard: card('executor') });
    expect(NODE_LABEL_LENGTH).toBe(40);
    expect(node.nodeLabel).toBe('Book the large meeting room on the third');
    expect(node.nodeLabel).toHaveLength(40);
    expect(node.nodeKey).toBe('executor');
  });

  it('keeps a short task whole and counts characters, not UTF-16 units', () => {
    expect(new InteractionFlowNode({ task: 'Book', targetAgentCard: card('executor') }).nodeLabel).toBe('Book');
    const emoji = '🙂'.repeat(45);
    expect(new InteractionFlowNode({ task: emoji, targetAgentCard: card('executor') }).nodeLabel).toBe('🙂'.repeat(40));
  });

  it('takes an explicit key and label, and refuses an empty task', () => {
    const node = new InteractionFlowNode({ task: 'x', targetAgentCard: card('executor'), nodeKey: 'k1', nodeLabel: 'Label' });
    expect([node.nodeKey, node.nodeLabel]).toEqual(['k1', 'Label']);
    expect(() => new InteractionFlowNode({ task: '  ', targetAgentCard: card('executor') })).toThrow(TypeError);
  });
});

describe('AgentInteractionFlow.runWorkflow', () => {
  it('refuses to run without a source card', async () => {
    const flow = new AgentInteractionFlow({ env }).addNode(new InteractionFlowNode({ task: 'result', targetAgentCard: target }));
    const error = await collect(flow.runWorkflow()).catch((e: unknown) => e);
    expect(FrameworkError.isInstance(error)).toBe(true);
    expect((error as FrameworkError).code).toBe('invalid_request');
    expect((error as Error).message).toBe('AgentInteractionFlow has no source card: call setSourceCard(card) before runWorkflow().');
  });

  it('runs an allowed node against the real agent and tags each chunk with the node', async () => {
    const before = probe.calls.length;
    const flow = new AgentInteractionFlow({ env, contextId: 'flow-ctx' }).setSourceCard(card('orchestrator'));
    flow.addNode(new InteractionFlowNode({ task: 'result please', targetAgentCard: target, nodeKey: 'step_1' }));
    const chunks = await collect(flow.runWorkflow());
    expect(chunks.map((c) => [c.kind, c.state ?? c.artifactName])).toEqual([
      ['task', 'submitted'],
      ['status', 'working'],
      ['artifact', 'result'],
      ['status', 'completed'],
    ]);
    expect(new Set(chunks.map((c) => `${c.nodeKey}|${c.nodeLabel}|${c.contextId}`))).toEqual(new Set(['step_1|result please|flow-ctx']));
    expect(A2AResponse.outcome(A2AResponse.fromResults(chunks))).toBe('done');
    expect(probe.calls.slice(before)).toEqual([{ query: 'result please', contextId: 'flow-ctx' }]);
  });

  it('stops at a node the policy denies with PermissionError before anything reaches the target', async () => {
    const before = probe.calls.length;
    const auditBefore = stack.guardian.audit.size;
    const flow = new AgentInteractionFlow({ env }).setSourceCard(card('orchestrator'));
    flow.addNode(new InteractionFlowNode({ task: 'first allowed', targetAgentCard: target, nodeKey: 'ok' }));
    flow.addNode(new InteractionFlowNode({ task: 'second denied', targetAgentCard: target, sourceAgentCard: card('planner'), nodeKey: 'denied' }));
    flow.addNode(new InteractionFlowNode({ task: 'third never', targetAgentCard: target, nodeKey: 'never' }));
    const seen: FlowChunk[] = [];
    let error: unknown;
    try {
      for await (const chunk of flow.runWorkflow()) seen.push(chunk);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PermissionError);
    expect((error as PermissionError).source).toBe('planner');
    expect((error as PermissionError).target).toBe('database');
    expect((error as PermissionError).reason).toBe('no policy rule allows this agent pair');
    expect(new Set(seen.map((c) => c.nodeKey))).toEqual(new Set(['ok']));
    // The target ran the first node only.
    expect(probe.calls.slice(before).map((c) => c.query)).toEqual(['first allowed']);
    // The Guardian decided: allowed (client), allowed (target's own check), then the denial; nothing more.
    const decisions = stack.guardian.audit.recent({ limit: stack.guardian.audit.size - auditBefore }).map((e) => `${e.source}:${e.decision}`);
    expect(decisions.sort()).toEqual(['orchestrator:allowed', 'orchestrator:allowed', 'planner:denied']);
  });

  it('surfaces the policy reason of an explicit deny rule', async () => {
    const before = probe.calls.length;
    const error = await collect(agentConnection(card('untrusted'), target, 'result', { env })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionError);
    expect((error as PermissionError).message).toBe('Agent "untrusted" may not call agent "database": untrusted agents may not call the database');
    expect(probe.calls.length).toBe(before);
  });

  it('sends a data payload as an object the target receives unchanged', async () => {
    const before = probe.calls.length;
    const payload = { text: 'book', rooms: ['A'], nested: { n: 1 } };
    const chunks = await collect(agentConnection(card('orchestrator'), target, payload, { env }));
    expect(probe.calls.slice(before).map((c) => c.query)).toEqual([payload]);
    expect(chunks.find((c) => c.kind === 'artifact')?.data).toEqual({ received: payload });
  });

  it('keeps the result of a target that does not stream (one blocking answer)', async () => {
    const cardPath = await writeCard(scratch.dir, 'nostream', { capabilities: { streaming: 'False', pushNotifications: 'False' } });
    const built = probeAgent('nostream');
    const other = await runProbe(built.core, built.agent, {
      AGENT_CARD: cardPath,
      A2A_KEYS: keys.json,
      A2A_VALIDATION_MODE: 'strict',
      GUARDIAN_URL: stack.guardian.url,
    });
    try {
      expect(other.card?.capabilities?.streaming).toBe(false);
      const chunks = await collect(agentConnection(card('orchestrator'), other.card!, 'result please', { env }));
      expect(chunks.map((c) => [c.kind, c.state ?? c.artifactName])).toEqual([
        ['task', 'completed'],
        ['artifact', 'result'],
      ]);
      expect(A2AResponse.outcome(A2AResponse.fromResults(chunks))).toBe('done');
    } finally {
      await other.close();
    }
  });
});

describe('agentConnection with stream: false (one blocking SendMessage)', () => {
  const outcomeOf = async (task: string, stream: boolean) =>
    A2AResponse.outcome(
      A2AResponse.fromResults(await collect(agentConnection(card('orchestrator'), target, task, { env, contextId: 'blocking-ctx', stream }))),
    );

  it('yields the final task after its artifacts, and the target runs the message once with its context', async () => {
    const before = probe.calls.length;
    const chunks = await collect(agentConnection(card('orchestrator'), target, 'stream this', { env, contextId: 'blocking-ctx', stream: false }));
    expect(chunks.map((c) => [c.kind, c.state ?? c.artifactName, c.text ?? c.data])).toEqual([
      ['artifact', 'text', 'half way'],
      ['artifact', 'result', { outcome: 'streamed', n: 3 }],
      ['task', 'completed', undefined],
    ]);
    expect(new Set(chunks.map((c) => c.contextId))).toEqual(new Set(['blocking-ctx']));
    expect(probe.calls.slice(before)).toEqual([{ query: 'stream this', contextId: 'blocking-ctx' }]);
  });

  it('gives the outcome the stream gives: a result, a text, an input-required prompt, a failure', async () => {
    for (const task of ['result now', 'stream again', 'ask first', 'fail hard']) {
      const [streamed, blocking] = [await outcomeOf(task, true), await outcomeOf(task, false)];
      expect({ task, outcome: blocking }).toEqual({ task, outcome: streamed });
    }
    // The values themselves, so two equally wrong answers cannot pass.
    expect(await outcomeOf('result now', false)).toBe('done');
    expect(await outcomeOf('ask first', false)).toBe('Approve the plan?');
    expect(await outcomeOf('fail hard', false)).toBe('the thing broke');
  });

  it('carries the prompt and its action type of a task that waits for input', async () => {
    const chunks = await collect(agentConnection(card('orchestrator'), target, 'ask now', { env, stream: false }));
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ kind: 'task', state: 'input_required', text: 'Approve the plan?', actionType: 'plan_confirmation' });
  });

  it('is refused before anything is sent when the policy denies the pair', async () => {
    const before = probe.calls.length;
    const error = await collect(agentConnection(card('planner'), target, 'result', { env, stream: false })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionError);
    expect((error as PermissionError).reason).toBe('no policy rule allows this agent pair');
    expect(probe.calls.length).toBe(before);
  });

  it('is signed: a key the target does not know is refused with SignatureError and nothing runs', async () => {
    const before = probe.calls.length;
    const stranger = makeKeys(['orchestrator']);
    const error = await collect(agentConnection(card('orchestrator'), target, 'result', { env: { ...env, A2A_KEYS: stranger.json }, stream: false })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SignatureError);
    expect(probe.calls.length).toBe(before);
  });

  it('stops waiting when its signal fires while the target still works', async () => {
    const before = probe.slowSignals.length;
    const controller = new AbortController();
    const call = collect(agentConnection(card('orchestrator'), target, 'slow job', { env, stream: false, signal: controller.signal })).catch((e: unknown) => e);
    while (probe.slowSignals.length === before) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const error = await call;
    expect((error as Error).name).toBe('AbortError');
  });
});
