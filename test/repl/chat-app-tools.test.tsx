import { cleanup, render } from 'ink-testing-library';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChatApp } from '../../repl/chat-app.js';
import { ChatSession } from '../../repl/chat-session.js';
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
