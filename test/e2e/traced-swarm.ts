/**
 * The tutorial swarm as `up` starts it (the Supervisor, one child process per
 * service: policy engine, Guardian, executor, planner), each service exporting
 * spans by the standard OTEL_* variables it is given, and the tutorial plan
 * run against it. Shared by the tracing tests (our receiver, a third-party
 * backend). Run `npm run build` first.
 */
import { expect } from 'vitest';
import { Supervisor } from '../../runtime/supervisor/supervisor.js';
import { POLICIES, createWorkspace, testKey, type Workspace } from './a2a-support.js';
import { freePort } from '../support/net.js';
import { CLI } from '../support/processes.js';

export type SwarmService = 'policy' | 'guardian' | 'executor' | 'planner';

/** A running swarm: its workspace (the stack root, where the local trace store is) and each service's URL and port. */
export interface TracedSwarm {
  readonly workspace: Workspace;
  readonly urls: Record<SwarmService, string>;
  readonly ports: Record<SwarmService, number>;
  stop(options?: { keepWorkspace?: boolean }): Promise<void>;
}

/**
 * Starts the swarm under a Supervisor (which also keeps the stack's traces
 * for `framework-cli trace`, as `up` does); `otel` is the environment every
 * service gets: the user's backend, as one would point the stack at it.
 */
export async function startTracedSwarm(options: { otel: Record<string, string> }): Promise<TracedSwarm> {
  const ports: Record<SwarmService, number> = { policy: await freePort(), guardian: await freePort(), executor: await freePort(), planner: await freePort() };
  const urls = Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, `http://127.0.0.1:${port}`])) as Record<SwarmService, string>;
  const workspace = await createWorkspace({
    ports: { planner: ports.planner, executor: ports.executor },
    keys: [testKey('planner-1', 'planner'), testKey('executor-1', 'executor')],
  });
  const otel = options.otel;
  const a2a = { ...otel, A2A_KEYS_FILE: workspace.keysFile, A2A_VALIDATION_MODE: 'strict', GUARDIAN_URL: urls.guardian };
  const supervisor = new Supervisor({
    root: workspace.dir,
    cliPath: CLI,
    services: [
      {
        name: 'policy',
        kind: 'policy',
        port: ports.policy,
        args: ['policy', 'serve', POLICIES, '--addr', `127.0.0.1:${ports.policy}`, '--no-watch'],
        env: otel,
      },
      {
        name: 'guardian',
        kind: 'guardian',
        port: ports.guardian,
        args: ['serve', 'guardian', '--addr', `127.0.0.1:${ports.guardian}`, '--opa-url', urls.policy],
        env: otel,
        dependsOn: ['policy'],
      },
      {
        name: 'executor',
        kind: 'agent',
        port: ports.executor,
        args: ['serve', 'agent', '--example', 'executor', '--a2a-only', '--port', String(ports.executor)],
        env: { ...a2a, AGENT_CARD: workspace.cardPath('executor') },
        dependsOn: ['guardian'],
      },
      {
        name: 'planner',
        kind: 'agent',
        port: ports.planner,
        args: ['serve', 'agent', '--example', 'planner', '--port', String(ports.planner)],
        env: { ...a2a, AGENT_CARD: workspace.cardPath('planner'), EXECUTOR_CARD: workspace.cardPath('executor') },
        dependsOn: ['guardian', 'executor'],
      },
    ],
  });
  try {
    await supervisor.start();
  } catch (error) {
    await supervisor.stop();
    await workspace.remove();
    throw error;
  }
  return {
    workspace,
    urls,
    ports,
    stop: async ({ keepWorkspace = false } = {}) => {
      await supervisor.stop();
      if (!keepWorkspace) await workspace.remove();
    },
  };
}

/** The events of one `POST /query` answer (JSON). */
export interface QueryAnswer {
  response: Response;
  body: { events: { event: string; data: Record<string, unknown> }[] };
}

/** `POST /query` to the planner with a session token; expects a 200. */
export async function query(plannerUrl: string, token: string, text: string, headers: Record<string, string> = {}): Promise<QueryAnswer> {
  const response = await fetch(`${plannerUrl}/query`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify({ query: text }),
  });
  expect(response.status).toBe(200);
  return { response, body: (await response.json()) as QueryAnswer['body'] };
}

/**
 * The tutorial plan: a session, a proposed three-action plan, and its
 * approval (sent with `traceparent`), whose steps run on the executor over
 * A2A checked by the Guardian and the policy engine. Returns the approval's answer.
 */
export async function runTutorialPlan(options: { plannerUrl: string; traceparent: string }): Promise<QueryAnswer> {
  const started = await fetch(`${options.plannerUrl}/session/start`, { method: 'POST' });
  const { session_token: token } = (await started.json()) as { session_token: string };
  const proposed = await query(options.plannerUrl, token, 'Book the room; send the invitations; order catering');
  const question = proposed.body.events.find((e) => e.event === 'input_required');
  expect(question, JSON.stringify(proposed.body)).toBeDefined();
  const plan = question!.data as { data: { plan_id: string } };
  const approved = await query(options.plannerUrl, token, `PLAN_CONFIRM_APPROVE ${plan.data.plan_id}`, { traceparent: options.traceparent });
  expect(approved.body.events.some((e) => e.event === 'result')).toBe(true);
  return approved;
}
