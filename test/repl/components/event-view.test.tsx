import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentResponse } from '../../../runtime/core/agent-response.js';
import type { ChatEvent } from '../../../repl/chat-event.js';
import { ErrorLine } from '../../../repl/components/error-line.js';
import { EventView } from '../../../repl/components/event-view.js';
import { StatusLine } from '../../../repl/components/status-line.js';
import { screen } from '../ink-driver.js';

const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

afterEach(() => cleanup());

function show(event: ChatEvent, live = false): string {
  return screen(render(<EventView event={event} live={live} />));
}

describe('EventView', () => {
  it('shows a live status with a spinner, and a finished one as a plain line', () => {
    const live = show(AgentResponse.status('Planning...'), true);
    expect(live).toMatch(SPINNER);
    expect(live).toContain('Planning...');

    const done = show(AgentResponse.status('Planning...'));
    expect(done).toBe('• Planning...');
    expect(done).not.toMatch(SPINNER);
  });

  it('animates the spinner of a running status', async () => {
    const app = render(<StatusLine text="Step 1/2: book flights" running />);
    const first = app.lastFrame();
    await expect.poll(() => app.lastFrame(), { timeout: 2_000, interval: 20 }).not.toBe(first);
    expect(screen(app)).toContain('Step 1/2: book flights');
  });

  it('shows a text response as written', () => {
    expect(show(AgentResponse.text('The plan was cancelled.\nNothing was executed.'))).toBe('The plan was cancelled.\nNothing was executed.');
  });

  it('shows an answer result naturally, its sources as a list', () => {
    const frame = show(AgentResponse.result({ answer: 'Paris is the capital of France.', sources: ['atlas.md', { title: 'Wiki' }] }));
    expect(frame).toBe(['Paris is the capital of France.', 'Sources:', '  - atlas.md', '  - {"title":"Wiki"}'].join('\n'));
    expect(show(AgentResponse.result({ answer: '42' }))).toBe('42');
  });

  it('shows actions and outcomes as a numbered list', () => {
    const frame = show(AgentResponse.result({ actions: ['book flights', 'reserve hotel', 'rent a car'], outcomes: ['Done: book flights', { ok: true }] }));
    expect(frame).toBe(['Result:', '  1. book flights → Done: book flights', '  2. reserve hotel → {"ok":true}', '  3. rent a car → —'].join('\n'));
  });

  it('pretty-prints any other result as JSON', () => {
    expect(show(AgentResponse.result({ echo: 'hi', n: [1, 2] }))).toBe(JSON.stringify({ echo: 'hi', n: [1, 2] }, null, 2));
  });

  it('shows an error event in one line with its code', () => {
    expect(show(AgentResponse.error('The model is not loaded', { code: 'model_unavailable' }))).toBe('✖ The model is not loaded (model_unavailable)');
  });

  it('shows a session notice', () => {
    expect(show({ type: 'session', status: 'resumed', text: 'Resumed your session with http://127.0.0.1:8100.' })).toBe(
      'Resumed your session with http://127.0.0.1:8100.',
    );
  });

  it('shows a question that is not a plan as a question', () => {
    expect(show(AgentResponse.inputRequired('What would you like to change in the plan?'))).toBe('? What would you like to change in the plan?');
  });

  it('shows a plan confirmation as a card', () => {
    const frame = show(AgentResponse.inputRequired('Plan:\n1. first', { actionType: 'plan_confirmation' }), true);
    expect(frame).toContain('╭');
    expect(frame).toContain('│ Plan:');
    expect(frame).toContain('a approve · r reject · m modify · Enter to type a reply');
  });
});

describe('ErrorLine', () => {
  it('adds a hint line when there is one', () => {
    const app = render(
      <ErrorLine message="Cannot reach the agent at http://127.0.0.1:9 (connection refused)." hint="Is the agent running? Try framework-cli up." />,
    );
    expect(screen(app)).toBe(
      ['✖ Cannot reach the agent at http://127.0.0.1:9 (connection refused).', '  Is the agent running? Try framework-cli up.'].join('\n'),
    );
  });

  it('is one line without a hint', () => {
    expect(screen(render(<ErrorLine message="Cancelled." hint="" />))).toBe('✖ Cancelled.');
  });
});
