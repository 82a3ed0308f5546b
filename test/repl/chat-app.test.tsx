import { cleanup, render } from 'ink-testing-library';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { ChatApp } from '../../repl/chat-app.js';
import { ChatSession } from '../../repl/chat-session.js';
import type { SessionTokenStore } from '../../repl/session-token-store.js';
import { createFixtureAgent } from '../http/agent-fixture.js';
import { startPlannerReplica, type PlannerLog } from '../planning/planner-support.js';
import { freePort } from '../support/net.js';
import { redisScope } from '../support/redis-scope.js';
import { fixtureAgentServer, tempTokenStores } from './chat-support.js';
import { count, KEY, press, screen, settle, submitLine, waitForText, type RenderedApp } from './ink-driver.js';
import { runAgent } from '../../runtime/agent/run-agent.js';

// The chat REPL driven by keys, against real agents: a planner on the real
// front door with its sessions in Redis, and the HTTP fixture agent.

const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
const LEGEND = 'a approve · r reject · m modify · Enter to type a reply';
const REQUEST = 'book flights; reserve hotel';

const tokenStore = tempTokenStores();

/** Renders the app on a new session with `url`, and waits until the session is opened (or failed). */
async function startChat(options: { url: string; store?: SessionTokenStore; forceNew?: boolean; onExit?: () => void; ready?: string }) {
  const store = options.store ?? (await tokenStore());
  const session = new ChatSession({ agentUrl: options.url, store });
  const app = render(<ChatApp session={session} {...(options.forceNew ? { forceNew: true } : {})} {...(options.onExit ? { onExit: options.onExit } : {})} />);
  await waitForText(app, options.ready ?? 'Started a new session with');
  await waitForText(app, 'Type a message');
  return { app, session, store };
}

/** Sends the request and waits for its plan card. */
async function proposePlan(app: RenderedApp): Promise<void> {
  await submitLine(app, REQUEST);
  await waitForText(app, LEGEND);
}

afterEach(() => {
  cleanup();
});

describe('ChatApp with a planner (sessions in Redis)', () => {
  const scope = redisScope();
  const log: PlannerLog = { planned: [], executed: [] };
  let planner: RunningAgent;

  beforeAll(async () => {
    planner = await startPlannerReplica({ prefix: scope.prefix, log });
  });
  afterAll(async () => {
    await planner?.close();
  });
  afterEach(() => {
    log.planned.length = 0;
    log.executed.length = 0;
  });

  it('shows the status while planning, then the plan card; a approves and the steps run', async () => {
    const { app } = await startChat({ url: planner.url });
    await proposePlan(app);

    expect(app.frames.some((frame) => frame.includes('Planning...') && SPINNER.test(frame))).toBe(true);
    const proposed = screen(app);
    expect(proposed.indexOf(`› ${REQUEST}`)).toBeLessThan(proposed.indexOf('• Planning...'));
    expect(proposed.indexOf('• Planning...')).toBeLessThan(proposed.indexOf('Proposed plan'));
    expect(proposed).toContain(`Objective: ${REQUEST}`);
    expect(proposed).toMatch(/1\. book flights\s*│\n│\s+2\. reserve hotel/);
    expect(proposed).toContain('a / r / m, or type a reply');
    expect(log.executed).toEqual([]);

    await press(app, 'a');
    const done = await waitForText(app, '2. reserve hotel → Done: reserve hotel');
    expect(done).toContain('› Approve the plan');
    expect(done.indexOf('• Step 1/2: book flights')).toBeLessThan(done.indexOf('• Step 2/2: reserve hotel'));
    expect(done.indexOf('• Step 2/2: reserve hotel')).toBeLessThan(done.indexOf('Result:'));
    expect(done).toContain('1. book flights → Done: book flights');
    expect(log.executed).toEqual(['book flights', 'reserve hotel']);
    // The card is history now: no keys on it, and the prompt takes a new message.
    await waitForText(app, 'Type a message');
    expect(screen(app)).not.toContain(LEGEND);
  });

  it('r rejects the plan: nothing runs', async () => {
    const { app } = await startChat({ url: planner.url });
    await proposePlan(app);
    await press(app, 'r');
    await waitForText(app, 'The plan was cancelled. Nothing was executed.');
    expect(screen(app)).toContain('› Reject the plan');
    await waitForText(app, 'Type a message');
    expect(log.executed).toEqual([]);
  });

  it('m asks what to change, and the typed answer brings a revised plan card that shows the changes', async () => {
    const { app } = await startChat({ url: planner.url });
    await proposePlan(app);
    await press(app, 'm');
    await waitForText(app, '? What would you like to change in the plan?');
    await waitForText(app, 'Type your answer, then Enter');
    await submitLine(app, 'remove step 1 and also rent a car');
    await waitForText(app, 'Revised plan');
    await waitForText(app, /\+2\. rent a car \(added\)/);
    await waitForText(app, /- .+ \(removed\)/);
    await waitForText(app, LEGEND);
    expect(count(app, 'Proposed plan')).toBe(1);
    // Edits the parser reads never plan again.
    expect(log.planned).toEqual([REQUEST]);
    expect(log.executed).toEqual([]);
  });

  it('Enter or another key starts a typed reply; "sí, adelante" approves the plan', async () => {
    const { app } = await startChat({ url: planner.url });
    await proposePlan(app);
    await press(app, KEY.enter);
    await waitForText(app, 'Type your reply to the plan, then Enter');
    // Now m is a letter of the reply, not a decision.
    await press(app, 'm');
    await waitForText(app, /› m\s*$/);
    expect(screen(app)).not.toContain('What would you like to change');
    await press(app, '\u007F');
    await waitForText(app, 'Type your reply to the plan, then Enter');
    await submitLine(app, 'sí, adelante');
    await waitForText(app, '2. reserve hotel → Done: reserve hotel');
    expect(screen(app)).toContain('› sí, adelante');
    expect(log.executed).toEqual(['book flights', 'reserve hotel']);
  });

  it('the up arrow recalls the last message', async () => {
    const { app } = await startChat({ url: planner.url });
    await proposePlan(app);
    await submitLine(app, '/help');
    await waitForText(app, 'Commands');
    const before = count(app, REQUEST);
    await press(app, KEY.up);
    await waitForText(app, /› \/help\s*$/);
    await press(app, KEY.up);
    await vi.waitFor(() => expect(count(app, REQUEST)).toBe(before + 1));
    expect(screen(app)).toMatch(new RegExp(`› ${REQUEST}\\s*$`));
    // A recalled line is a typed reply: a key now edits it instead of deciding.
    await press(app, '!');
    await waitForText(app, new RegExp(`› ${REQUEST}!\\s*$`));
  });

  it('/help, an unknown command, and /new, which starts a new session', async () => {
    const { app, store } = await startChat({ url: planner.url });
    const first = await store.get(planner.url);
    await proposePlan(app);

    await submitLine(app, '/help');
    await waitForText(app, '/exit  quit (Ctrl-C at the prompt does the same)');
    await submitLine(app, '/nope');
    await waitForText(app, 'Unknown command /nope. The commands are /help, /new, /exit; anything else is sent to the agent.');

    await submitLine(app, '/new');
    await vi.waitFor(() => expect(count(app, 'Started a new session with')).toBe(2), { timeout: 10_000 });
    await waitForText(app, 'Type a message');
    const second = await store.get(planner.url);
    expect(second?.token).toBeDefined();
    expect(second?.token).not.toBe(first?.token);

    // The new conversation has no plan: "yes" is a new request, not an approval.
    await submitLine(app, 'yes');
    await waitForText(app, 'Objective: yes');
    expect(log.executed).toEqual([]);
  });

  it('a failure while deciding keeps the plan pending, so the user can decide again', async () => {
    const replica = await startPlannerReplica({ prefix: scope.prefix, log });
    const { app } = await startChat({ url: replica.url });
    await proposePlan(app);
    await replica.close();
    await press(app, 'a');
    await waitForText(app, 'Is the agent running?');
    await waitForText(app, 'a / r / m, or type a reply');
    expect(log.executed).toEqual([]);
  });

  it('resumes the saved session, unless asked for a new one', async () => {
    const store = await tokenStore();
    const first = await startChat({ url: planner.url, store });
    first.app.unmount();
    const resumed = await startChat({ url: planner.url, store, ready: 'Resumed your session with' });
    resumed.app.unmount();
    const fresh = await startChat({ url: planner.url, store, forceNew: true });
    expect(screen(fresh.app)).not.toContain('Resumed');
  });

  it('/exit and Ctrl-C at the prompt quit', async () => {
    const onExit = vi.fn();
    const { app } = await startChat({ url: planner.url, onExit });
    await submitLine(app, '/exit');
    await vi.waitFor(() => expect(onExit).toHaveBeenCalledTimes(1));

    const onCtrlC = vi.fn();
    const other = await startChat({ url: planner.url, onExit: onCtrlC });
    await press(other.app, KEY.ctrlC);
    await vi.waitFor(() => expect(onCtrlC).toHaveBeenCalledTimes(1));
  });
});

describe('Ctrl-T: the trace of the last turn', () => {
  const scope = redisScope();
  let planner: RunningAgent;

  beforeAll(async () => {
    planner = await startPlannerReplica({ prefix: scope.prefix, log: { planned: [], executed: [] } });
  });
  afterAll(async () => {
    await planner?.close();
  });

  it('says why there is none when the agent does not trace', async () => {
    const { app, session } = await startChat({ url: planner.url });
    await proposePlan(app);
    expect(session.lastTraceId).toBeUndefined();
    await press(app, '\u0014');
    await waitForText(app, 'The agent sent no trace id: tracing is off there.');
  });
});

describe('ChatApp with the fixture agent', () => {
  const fixture = fixtureAgentServer();

  it('Ctrl-C during a slow request cancels it, and the prompt comes back', async () => {
    const onExit = vi.fn();
    const { app } = await startChat({ url: fixture.url(), onExit });
    await submitLine(app, 'slow request');
    await waitForText(app, 'Ctrl-C cancels');
    await vi.waitFor(() => expect(SPINNER.test(screen(app)) && screen(app).includes('started')).toBe(true), { timeout: 10_000 });

    await press(app, KEY.ctrlC);
    await waitForText(app, 'Cancelled.');
    await waitForText(app, 'Type a message');
    expect(screen(app)).toContain('• started');
    expect(onExit).not.toHaveBeenCalled();
    // Closing the stream cancelled the task on the agent.
    await vi.waitFor(() => expect(fixture.probe().aborted).toContain('slow request'), { timeout: 10_000 });

    await submitLine(app, 'hello');
    await waitForText(app, '"echo": "hello"');
  });

  it('prints a plan card once when the stream ends after it, and shows the keys only once they work', async () => {
    const { app } = await startChat({ url: fixture.url() });
    await submitLine(app, 'lateplan');
    await waitForText(app, 'Proposed plan');
    expect(screen(app)).not.toContain(LEGEND); // still streaming: a and r would not decide yet
    await waitForText(app, LEGEND);
    await settle();
    expect(count(app, 'Proposed plan')).toBe(1);

    // Cancelling the approval goes back to the prompt, not to the plan: the agent may already have used it up.
    await press(app, 'a');
    await waitForText(app, 'Ctrl-C cancels');
    await press(app, KEY.ctrlC);
    await waitForText(app, 'Cancelled.');
    await waitForText(app, 'Type a message');
    expect(screen(app)).not.toContain('a / r / m, or type a reply');
    await vi.waitFor(() => expect(fixture.probe().aborted).toContain('PLAN_CONFIRM_APPROVE late-1'), { timeout: 10_000 });
  });

  it('shows a plan without structured data as its text in a card, then what followed it', async () => {
    const { app } = await startChat({ url: fixture.url() });
    await submitLine(app, 'multi');
    const frame = await waitForText(app, '2. b → 2');
    expect(frame).toMatch(/╭─+╮\n│ Plan:\s+│\n│ 1\. first\s+│\n│ 2\. second\s+│\n│ Approve\?\s+│\n╰─+╯/);
    expect(frame).toContain('plain text');
    await settle();
    expect(screen(app)).toContain('a / r / m, or type a reply');
  });
});

describe('ChatApp when the agent is down', () => {
  it('shows a red error with a hint, stays usable, and the next message tries again', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const { app } = await startChat({ url, ready: 'Is the agent running?' });
    expect(screen(app)).toContain(`✖ Cannot reach the agent at ${url} (connection refused).`);

    await submitLine(app, 'hello');
    await vi.waitFor(() => expect(count(app, 'Is the agent running?')).toBe(2), { timeout: 10_000 });
    await waitForText(app, 'Type a message');
    expect(screen(app)).toContain('› hello');

    const fixture = createFixtureAgent();
    const agent = await runAgent(fixture.core, fixture.agent, { port, a2a: false, env: { LOG_LEVEL: 'error' } });
    try {
      await submitLine(app, 'hello again');
      await waitForText(app, '"echo": "hello again"');
      expect(screen(app)).toContain(`Started a new session with ${url}.`);
    } finally {
      await agent.close();
    }
  });
});
