import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentResponse, PLAN_CONFIRMATION } from '../../../runtime/core/agent-response.js';
import { isPlanConfirmation, type PlanConfirmation } from '../../../repl/chat-event.js';
import { PLAN_KEY_LEGEND, PlanCard } from '../../../repl/components/plan-card.js';
import { screen } from '../ink-driver.js';

afterEach(() => cleanup());

function planEvent(text: string, data?: Record<string, unknown>): PlanConfirmation {
  const event = AgentResponse.inputRequired(text, { actionType: PLAN_CONFIRMATION, ...(data ? { data } : {}) });
  if (!isPlanConfirmation(event)) throw new Error('not a plan');
  return event;
}

const STRUCTURED = planEvent('Proposed plan\nObjective: book flights; reserve hotel\n...', {
  plan_id: 'p-1',
  plan: {
    objective: 'book flights; reserve hotel',
    methodology: 'WBS',
    methodology_rationale: 'The request is split into its own steps.',
    tasks: [
      { task_id: 'action_1', description: 'book flights' },
      { task_id: 'action_2', description: 'reserve hotel' },
    ],
  },
});

describe('PlanCard', () => {
  it('shows a revised plan with its changes: steps added, changed and moved, and the ones removed', () => {
    const revised = planEvent('Revised plan\n...', {
      plan_id: 'p-2',
      previous_plan_id: 'p-1',
      plan: {
        objective: 'Summer trip',
        objective_changed: true,
        methodology: 'WBS',
        methodology_rationale: '',
        tasks: [
          { task_id: 'action_1', description: 'reserve hotel', change: 'moved' },
          { task_id: 'action_2', description: 'book cheap flights', change: 'changed' },
          { task_id: 'action_3', description: 'rent a car', change: 'added' },
          { task_id: 'action_4', description: 'pack' },
        ],
        removed: ['buy a guidebook'],
      },
    });
    const inside = screen(render(<PlanCard event={revised} />))
      .split('\n')
      .slice(1, -1)
      .map((line) => line.replace(/^│ (.*?)\s*│$/, '$1'));
    expect(inside).toEqual([
      'Revised plan',
      'Objective: Summer trip (changed)',
      'Methodology: WBS',
      'Tasks:',
      '  ↕1. reserve hotel (moved)',
      '  ~2. book cheap flights (changed)',
      '  +3. rent a car (added)',
      '   4. pack',
      '  - buy a guidebook (removed)',
    ]);
  });

  it('shows a structured plan in a bordered box with the key legend while pending', () => {
    const lines = screen(render(<PlanCard event={STRUCTURED} pending />)).split('\n');
    expect(lines[0]).toMatch(/^╭─+╮$/);
    expect(lines.at(-1)).toMatch(/^╰─+╯$/);
    const inside = lines.slice(1, -1).map((line) => line.replace(/^│ (.*?)\s*│$/, '$1'));
    expect(inside).toEqual([
      'Proposed plan',
      'Objective: book flights; reserve hotel',
      'Methodology: WBS',
      'The request is split into its own steps.',
      'Tasks:',
      '  1. book flights',
      '  2. reserve hotel',
      '',
      PLAN_KEY_LEGEND,
    ]);
    expect(PLAN_KEY_LEGEND).toBe('a approve · r reject · m modify · Enter to type a reply');
  });

  it('drops the legend once the plan is no longer pending', () => {
    const frame = screen(render(<PlanCard event={STRUCTURED} />));
    expect(frame).toContain('2. reserve hotel');
    expect(frame).not.toContain('a approve');
  });

  it('shows the text inside the card when the agent sent no structured plan', () => {
    const frame = screen(render(<PlanCard event={planEvent('Plan:\n1. first\n2. second\nApprove?')} pending />));
    const inside = frame
      .split('\n')
      .slice(1, -1)
      .map((line) => line.replace(/^│ (.*?)\s*│$/, '$1'));
    expect(inside).toEqual(['Plan:', '1. first', '2. second', 'Approve?', '', PLAN_KEY_LEGEND]);
  });

  it('falls back to the text when the structured data does not have the shape of a plan', () => {
    const frame = screen(render(<PlanCard event={planEvent('Plan: do it', { plan: { steps: 3 } })} pending />));
    expect(frame).toContain('│ Plan: do it');
    expect(frame).not.toContain('Objective');
  });
});
