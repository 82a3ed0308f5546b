import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentResponse, PLAN_CONFIRMATION } from '../../../runtime/core/agent-response.js';
import { TOOL_APPROVAL } from '../../../runtime/tools/tool-approval.js';
import type { ChatEvent } from '../../../repl/chat-event.js';
import { ErrorLine } from '../../../repl/components/error-line.js';
import { EventView } from '../../../repl/components/event-view.js';
import { screen } from '../ink-driver.js';

// Issue 33, "the terminal": what an agent or a model writes reaches the REPL's
// frame shown, never interpreted. Each test is one attack that once worked.

afterEach(() => cleanup());

/** What the terminal would interpret: any ESC but the REPL's own SGR, C1 controls, bidi controls, invisible format characters. */
const INTERPRETED = /\u001b(?!\[(?:\d+;)*\d*m)|[\u0080-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\u061c\ufeff]/;

function draw(event: ChatEvent, live = false): { raw: string; shown: string } {
  const app = render(<EventView event={event} live={live} />);
  const raw = app.lastFrame() ?? '';
  return { raw, shown: screen(app) };
}

function toolApproval(data: Record<string, unknown>, text = 'Approval needed'): ChatEvent {
  return AgentResponse.inputRequired(text, { actionType: TOOL_APPROVAL, data });
}

describe('the REPL shows remote text, never interprets it', () => {
  it('an answer that writes the clipboard (OSC 52) is shown as text', () => {
    const { raw, shown } = draw(AgentResponse.text('Here is the summary.\u001b]52;c;cm0gLXJmIH4K\u0007'));
    expect(raw).not.toMatch(INTERPRETED);
    expect(shown).toBe('Here is the summary.\\x1b]52;c;cm0gLXJmIH4K\\x07');
  });

  it('a status that sets the window title is shown as text, live and settled', () => {
    for (const live of [true, false]) {
      const { raw, shown } = draw(AgentResponse.status('Planning\u001b]0;sudo: password accepted\u0007'), live);
      expect(raw).not.toMatch(INTERPRETED);
      expect(shown).toContain('Planning\\x1b]0;sudo: password accepted\\x07');
    }
  });

  it('a result with a hidden link (OSC 8) shows the link target', () => {
    const link = '\u001b]8;;https://evil.example/login\u001b\\docs.example.com\u001b]8;;\u001b\\';
    const { raw, shown } = draw(AgentResponse.result({ answer: `See ${link}`, sources: [link] }));
    expect(raw).not.toMatch(INTERPRETED);
    expect(shown).toContain('See \\x1b]8;;https://evil.example/login\\x1b\\docs.example.com\\x1b]8;;\\x1b\\');
    expect(shown).toContain('  - \\x1b]8;;https://evil.example/login');
  });

  it('a plan step with a bidi override shows the override, in its true order', () => {
    const plan = AgentResponse.inputRequired('Proposed plan', {
      actionType: PLAN_CONFIRMATION,
      data: { plan_id: 'p-1', plan: { objective: 'pay\u202e', methodology: 'WBS', tasks: [{ description: 'open invoice\u202efdp.exe' }] } },
    });
    const { raw, shown } = draw(plan, true);
    expect(raw).not.toMatch(INTERPRETED);
    expect(shown).toContain('1. open invoice\\u202efdp.exe');
    expect(shown).toContain('Objective: pay\\u202e');
  });

  it('an 8-bit CSI (U+009B) in tool arguments is shown, not run', () => {
    const { raw, shown } = draw(toolApproval({ approval_id: 'a1', tool: 'transfer', arguments: { note: 'ok\u009b2J\u009b8m' }, reasons: [] }), true);
    expect(raw).not.toMatch(INTERPRETED);
    expect(shown).toContain('"note": "ok\\x9b2J\\x9b8m"');
  });

  it('concealed text (SGR 8) cannot hide "amount is 50000" on a tool-approval card', () => {
    const hidden = 'a small transfer\u001b[8m; amount is 50000\u001b[28m';
    const structured = draw(
      toolApproval({ approval_id: 'a1', tool: `transfer\u001b[8m_all`, arguments: { amount: 50000, to: 'acct-1' }, reasons: [hidden] }),
      true,
    );
    expect(structured.raw).not.toMatch(INTERPRETED);
    expect(structured.shown).toContain('Tool: transfer\\x1b[8m_all');
    expect(structured.shown).toContain('Why: a small transfer\\x1b[8m; amount is 50000\\x1b[28m');
    const textOnly = draw(toolApproval({}, `Approve ${hidden}?`), true);
    expect(textOnly.raw).not.toMatch(INTERPRETED);
    expect(textOnly.shown).toContain('Approve a small transfer\\x1b[8m; amount is 50000\\x1b[28m?');
  });

  it('an error that sets the window title is shown as text', () => {
    const { raw, shown } = draw(AgentResponse.error('model failed\u001b]2;all good\u0007', { code: 'task_error' }));
    expect(raw).not.toMatch(INTERPRETED);
    expect(shown).toBe('✖ model failed\\x1b]2;all good\\x07 (task_error)');
    const failure = render(<ErrorLine message={'HTTP 500: \u009b2J'} hint={'retry \u202elater'} />);
    expect(failure.lastFrame()).not.toMatch(INTERPRETED);
    expect(screen(failure)).toContain('HTTP 500: \\x9b2J');
    expect(screen(failure)).toContain('retry \\u202elater');
  });
});

describe('the tool-approval card shows the call exactly', () => {
  /** The card's text inside its border, lines joined: what wrapping split is whole again. */
  function inside(shown: string): string {
    return shown
      .split('\n')
      .map((line) => line.replace(/^[│╭╰]\s?/, '').replace(/\s?[│╮╯]$/, ''))
      .join('');
  }

  it('puts a tool name that forges a line on one line, and sorts the arguments (canonical JSON)', () => {
    const { shown } = draw(toolApproval({ approval_id: 'a1', tool: 'noop\nTool: get_quote', arguments: { symbol: 'ACME', amount: 50000 }, reasons: [] }));
    expect(shown).toContain('Tool: noop\\nTool: get_quote');
    expect(shown.match(/Tool:/g)).toHaveLength(2);
    expect(shown.indexOf('"amount": 50000')).toBeLessThan(shown.indexOf('"symbol": "ACME"'));
  });

  it('wraps a long value and never cuts it', () => {
    const account = Array.from({ length: 60 }, (_, i) => `acct${i}`).join('');
    const { shown } = draw(toolApproval({ approval_id: 'a1', tool: 'transfer', arguments: { to: account, amount: 50000 }, reasons: [] }));
    expect(shown).not.toContain('…');
    expect(inside(shown).replace(/\s+/g, '')).toContain(`"to":"${account}"`);
  });
});
