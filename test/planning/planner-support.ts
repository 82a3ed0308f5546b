import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { deleteKeys } from '../support/redis-keys.js';
import { FrameworkAgent } from '../../runtime/core/framework-agent.js';
import { FrameworkCore } from '../../runtime/core/framework-core.js';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { literalPlan } from '../../runtime/planning/literal-plan.js';
import type { PlanResult } from '../../runtime/planning/plan-records.js';
import type { PlannerMemory } from '../../runtime/planning/planner-memory.js';
import { registerPlannerTask, type PlannerOptions } from '../../runtime/planning/planner-task.js';
import { runAgent } from '../../runtime/agent/run-agent.js';

/** What a planner replica did: the requests it planned and the actions it executed. */
export interface PlannerLog {
  planned: string[];
  executed: string[];
  /** The past results the `plan` step was given, per planning run (when present). */
  pastResults?: (readonly string[])[];
}

/**
 * A planner replica on the real front door (port 0), sharing sessions
 * through Redis under `prefix`. Plans come from `plan` (default: the
 * request's own steps); actions are recorded, not delegated.
 */
export async function startPlannerReplica(options: {
  prefix: string;
  log: PlannerLog;
  plan?: (query: string) => Promise<PlanResult>;
  maxPlanAgeMs?: number;
  memory?: PlannerMemory;
  editPlan?: PlannerOptions['editPlan'];
}): Promise<RunningAgent> {
  const core = new FrameworkCore();
  const planner: PlannerOptions = {
    plan: async ({ query, pastResults }) => {
      options.log.planned.push(query);
      options.log.pastResults?.push(pastResults);
      return options.plan ? options.plan(query) : literalPlan(query);
    },
    executeAction: async ({ action }) => {
      options.log.executed.push(action);
      return { outcome: `Done: ${action}` };
    },
    ...(options.maxPlanAgeMs === undefined ? {} : { maxPlanAgeMs: options.maxPlanAgeMs }),
    ...(options.memory ? { memory: options.memory } : {}),
    ...(options.editPlan ? { editPlan: options.editPlan } : {}),
  };
  registerPlannerTask(core, planner);
  const agent = new FrameworkAgent({ agentName: 'planner', description: 'test planner' });
  return runAgent(core, agent, {
    port: 0,
    a2a: false,
    env: { SESSION_BACKEND: 'kv', SESSION_KV_URL: 'redis://127.0.0.1:6379', KV_PREFIX: options.prefix, LOG_LEVEL: 'error' },
  });
}

export interface Turn {
  events: { event: string; data: Record<string, unknown> }[];
  result: Record<string, unknown> | null;
}

/** One POST /query with `event_format: json` (so input_required carries its action type). */
export async function ask(agent: RunningAgent, query: string, token?: string): Promise<Turn> {
  const response = await fetch(`${agent.url}/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, event_format: 'json' }),
  });
  if (response.status !== 200) throw new Error(`POST /query answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Turn;
}

export async function startSession(agent: RunningAgent): Promise<string> {
  const response = await fetch(`${agent.url}/session/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  return ((await response.json()) as { session_token: string }).session_token;
}

export const kinds = (turn: Turn) => turn.events.map((e) => e.event);
export const texts = (turn: Turn, kind: string) => turn.events.filter((e) => e.event === kind).map((e) => String(e.data.text));
export const uniquePrefix = () => `fwtest:${randomUUID().slice(0, 8)}:`;

/**
 * Two planner replicas sharing sessions in Redis under a fresh prefix, for
 * one test file: started before its tests, closed and their keys deleted after.
 */
export function plannerPair(): { log: PlannerLog; a: () => RunningAgent; b: () => RunningAgent } {
  const prefix = uniquePrefix();
  const log: PlannerLog = { planned: [], executed: [] };
  let replicas: [RunningAgent, RunningAgent] | undefined;
  beforeAll(async () => {
    replicas = await Promise.all([startPlannerReplica({ prefix, log }), startPlannerReplica({ prefix, log })]);
  });
  afterAll(async () => {
    await Promise.all((replicas ?? []).map((replica) => replica.close()));
    const redis = new Redis('redis://127.0.0.1:6379');
    await deleteKeys(redis, prefix);
    await redis.quit();
  });
  const replica = (i: 0 | 1) => () => {
    if (!replicas) throw new Error('plannerPair: the replicas exist only inside tests');
    return replicas[i];
  };
  return { log, a: replica(0), b: replica(1) };
}
