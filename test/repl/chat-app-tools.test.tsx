import { cleanup, render } from 'ink-testing-library';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChatApp } from '../../repl/chat-app.js';
import { ChatSession } from '../../repl/chat-session.js';
import { UNDECIDED_TOOL_REPLY } from '../../repl/hooks/use-chat.js';
import { runAgent, type RunningAgent } from '../../runtime/agent/run-agent.js';
import { createTraderAgent } from '../../runtime/examples/trader-agent.js';
import { startStack } from '../guardian/stack.js';
import { tempTokenStores } from './chat-support.js';
import { press, screen, submitLine, waitForText } from './ink-driver.js';

// The REPL's tool-approval card against the trader example, its Guardian and the shipped trading policy.

const LEGEND = 'a approve · r reject · Enter to type a reply';
const tokenStore = tempTokenStores();
let stack: Awaited<ReturnType<typeof startStack>>;
let trader: RunningAgent;

beforeAll(async () => {
  stack = await startStack();
  const { core, agent } = createTraderAgent({ env: { GUARDIAN_URL: stack.guardian.url, A2A_VALIDATION_MODE: 'strict', LOG_LEVEL: 'error' } });
  trader = await runAgent(core, agent, { port: 0, a2a: false, env: { LOG_LEVEL: 'error' } });
});
afterAll(async () => {
  await trader?.close();
  await stack?.close();
});
afterEach(() => cleanup());

async function startChat() {
  const session = new ChatSession({ agentUrl: trader.url, store: await tokenStore() });
  const app = render(<ChatApp session={session} />);
  await waitForText(app, 'Started a new session with');
  await waitForText(app, 'Type a message');
  return app;
}

describe('ChatApp with a tool call waiting for approval', () => {
  it('draws the card (tool, arguments, why, keys); a approves and the trade runs', async () => {
    const app = await startChat();
    await submitLine(app, 'buy 10000 of ACME');
    await waitForText(app, LEGEND);
    const card = screen(app);
    expect(card).toContain('Approval needed');
    expect(card).toContain('Tool: place_trade');
    expect(card).toContain('"amount": 10000');
    expect(card).toContain("Why: policy trading requires a person's approval");
    expect(card).toContain('a / r, or type a reply');
    await press(app, 'a');
    await waitForText(app, /Placed order-\d+: 10000 USD of ACME\./);
    // Issue 41: the echo says what was approved, the tool call itself, not "Approve the plan".
    expect(screen(app)).toMatch(/› Approve place_trade\(\{"amount":10000,[^\n]*"symbol":"ACME"[^\n]*\}\)/);
    expect(screen(app)).not.toContain('Approve the plan');
  });

  it('r echoes the call it rejects; a typed reply that decides nothing says why before the card comes back', async () => {
    const app = await startChat();
    await submitLine(app, 'buy 30000 of ACME');
    await waitForText(app, LEGEND);
    await press(app, 'm');
    await waitForText(app, /› m\s*$/);
    await press(app, '\u007F');
    await submitLine(app, 'hmm, what time is it');
    await waitForText(app, UNDECIDED_TOOL_REPLY);
    await waitForText(app, LEGEND);
    const again = screen(app);
    expect(again.indexOf(UNDECIDED_TOOL_REPLY)).toBeGreaterThan(again.indexOf('› hmm, what time is it'));
    expect(again.lastIndexOf('Approval needed')).toBeGreaterThan(again.indexOf(UNDECIDED_TOOL_REPLY));
    await press(app, 'r');
    await waitForText(app, /› Reject place_trade\(\{"amount":30000,/);
    await waitForText(app, 'place_trade did not run');
    expect(screen(app)).not.toContain('Reject the plan');
  });

  it('r rejects, and m starts a typed reply instead of deciding', async () => {
    const app = await startChat();
    await submitLine(app, 'buy 20000 of ACME');
    await waitForText(app, LEGEND);
    await press(app, 'm');
    await waitForText(app, /› m\s*$/);
    await press(app, '\u007F');
    await waitForText(app, 'Type your reply to the tool call, then Enter');
    await submitLine(app, 'no');
    await waitForText(app, 'place_trade did not run: the person declined this call, so it did not run');
    expect(screen(app)).not.toContain('Placed order');
  });
});
