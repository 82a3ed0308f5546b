/**
 * The planner with system memory: a real memory service over the real Redis
 * and the real all-MiniLM embeddings, the planner on the real front door.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { AgentMemory } from '../../runtime/memory/agent-memory.js';
import { PENDING_CLARIFICATION_PREFIX, plannerMemory } from '../../runtime/memory/planner-memory-adapter.js';
import { startMemoryService, type RunningMemoryService } from '../../runtime/memory/start-memory-service.js';
import { modelRuntime } from '../memory/support.js';
import { freePort } from '../support/net.js';
import { REDIS_URL, redisScope } from '../support/redis-scope.js';
import { ask, kinds, startPlannerReplica, startSession, texts, uniquePrefix, type PlannerLog } from './planner-support.js';

const models = modelRuntime();
const scope = redisScope();
const log: PlannerLog = { planned: [], executed: [], pastResults: [] };
let service: RunningMemoryService;
let planner: RunningAgent;
let memory: AgentMemory;

const startService = () => startMemoryService({ port: 0, kvUrl: REDIS_URL, keyPrefix: scope.prefix, ollamaHost: models.url(), env: {} });

beforeAll(async () => {
  service = await startService();
  memory = new AgentMemory({ url: service.url, contextId: 'team', env: {} });
  planner = await startPlannerReplica({ prefix: uniquePrefix(), log, memory: plannerMemory(memory) });
}, 60_000);

afterAll(async () => {
  await planner?.close();
  await service?.close();
});

describe('planner with system memory', () => {
  it('records the pending plan, remembers the results, and recalls them for a related request after a restart', async () => {
    const token = await startSession(planner);
    const proposal = await ask(planner, 'Book flights to Madrid for the sales team; reserve a hotel near the office', token);
    expect(kinds(proposal)).toEqual(['status', 'input_required']);
    const planId = (proposal.events[1]!.data.data as { plan_id: string }).plan_id;
    const working = await memory.getWorkingMemory();
    const pending = Object.entries(working.data).find(([key]) => key.startsWith(PENDING_CLARIFICATION_PREFIX));
    expect(pending?.[1]).toMatchObject({ plan_id: planId, request: expect.stringContaining('Book flights to Madrid') });

    const approval = await ask(planner, 'yes', token);
    expect(approval.result).toMatchObject({ actions: ['Book flights to Madrid for the sales team', 'reserve a hotel near the office'] });
    const cleared = await memory.getWorkingMemory();
    expect(Object.entries(cleared.data).filter(([key, value]) => key.startsWith(PENDING_CLARIFICATION_PREFIX) && value !== null)).toEqual([]);

    // A new memory service process reads everything back from Redis.
    await service.close();
    service = await startService();
    const restarted = plannerMemory(new AgentMemory({ url: service.url, contextId: 'team', env: {} }));
    await planner.close();
    planner = await startPlannerReplica({ prefix: uniquePrefix(), log, memory: restarted });

    log.pastResults!.length = 0;
    const related = await ask(planner, 'Reserve plane tickets to Madrid for the sales team');
    expect(texts(related, 'status')).toContain('Recalled 1 related past result(s) from system memory');
    expect(log.pastResults![0]).toEqual([
      expect.stringMatching(/^Task: Book flights to Madrid.*\n1\. Book flights to Madrid for the sales team → Done: Book flights/s),
    ]);

    log.pastResults!.length = 0;
    const unrelated = await ask(planner, 'Water the plants in the lobby');
    expect(texts(unrelated, 'status').some((s) => s.startsWith('Recalled'))).toBe(false);
    expect(log.pastResults![0]).toEqual([]);
  }, 60_000);

  it('goes on without memory when the service is down, and says so', async () => {
    const down = plannerMemory(new AgentMemory({ url: `http://127.0.0.1:${await freePort()}`, contextId: 'team', env: {} }));
    const lonely = await startPlannerReplica({ prefix: uniquePrefix(), log: { planned: [], executed: [] }, memory: down });
    try {
      const turn = await ask(lonely, 'Print the agenda');
      expect(texts(turn, 'status')).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^System memory could not recall past results \(.*\); going on without it$/),
          expect.stringMatching(/^System memory could not record the results/),
        ]),
      );
      expect(turn.result).toMatchObject({ actions: ['Print the agenda'], outcomes: ['Done: Print the agenda'] });
    } finally {
      await lonely.close();
    }
  });
});
