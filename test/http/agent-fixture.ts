import { AgentResponse, FrameworkAgent, FrameworkCore, parseTaskInput } from '../../runtime/index.js';

/** What the fixture's tasks observed, for assertions. */
export interface Probe {
  /** Queries of `slow` tasks that saw their signal fire while waiting. */
  aborted: string[];
  started: string[];
  /** The signal each `slow` task got, by query. */
  signals: Map<string, AbortSignal>;
}

/**
 * A test agent whose router picks a task by the first word of the query:
 * `multi`, `slow`, `lateplan`, `quiet`, `fail`, `bigint`, `turn` (counts turns in session context), else echo.
 */
export function createFixtureAgent(name = 'fixture'): { core: FrameworkCore; agent: FrameworkAgent; probe: Probe } {
  const probe: Probe = { aborted: [], started: [], signals: new Map() };
  const core = new FrameworkCore();
  const agent = new FrameworkAgent({ agentName: name, description: 'test agent', version: '1.2.3' });

  core.task({ name: 'route_to_task' }, async function* ({ query, contextId, signal, agent: self }) {
    const text = typeof query === 'string' ? query : parseTaskInput(query).text;
    const [word = ''] = text.split(' ');
    probe.started.push(word);
    switch (word) {
      case 'multi':
        yield AgentResponse.status('Planning...');
        yield AgentResponse.inputRequired('Plan:\n1. first\n2. second\r\nApprove?', { actionType: 'plan_confirmation' });
        yield AgentResponse.text('plain text');
        yield AgentResponse.result({ actions: ['a', 'b'], outcomes: [1, 2] });
        return;
      case 'slow':
      case 'PLAN_CONFIRM_APPROVE': // an approval that takes long (of `lateplan`'s plan)
        probe.signals.set(text, signal);
        yield AgentResponse.status('started');
        try {
          await new Promise<void>((resolve, reject) => {
            signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
            setTimeout(resolve, 30_000).unref();
          });
        } finally {
          if (signal.aborted) probe.aborted.push(text);
        }
        yield AgentResponse.result({ done: true });
        return;
      case 'lateplan':
        // A plan whose stream ends in a later read than the plan itself.
        yield AgentResponse.inputRequired('Approve the late plan?', {
          actionType: 'plan_confirmation',
          data: { plan_id: 'late-1', plan: { objective: 'late', methodology: 'direct', tasks: [{ description: 'only step' }] } },
        });
        await new Promise((r) => setTimeout(r, 300));
        return;
      case 'quiet':
        await new Promise((r) => setTimeout(r, 250));
        yield AgentResponse.result({ done: true });
        return;
      case 'fail':
        yield AgentResponse.status('about to fail');
        throw new Error('secret internal detail');
      case 'bigint':
        yield AgentResponse.result({ n: 10n as unknown as number });
        return;
      case 'turn': {
        const id = contextId ?? 'none';
        const context = await self.getSessionContext(id);
        const turns = (typeof context.turns === 'number' ? context.turns : 0) + 1;
        await self.updateSessionContext(id, { turns });
        yield AgentResponse.result({ turns, context_id: id });
        return;
      }
      default:
        yield AgentResponse.result({ echo: text, context_id: contextId ?? null });
    }
  });
  return { core, agent, probe };
}
