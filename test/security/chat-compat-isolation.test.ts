import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent, type RunningAgent } from '../../runtime/agent/run-agent.js';
import { createFixtureAgent } from '../http/agent-fixture.js';

// Attack: the chat-UI compatibility mode found a conversation by a
// fingerprint of its history only, so a second client replaying a common
// opening continued the first client's conversation and read it back.
// Conversations are now bound to the caller.

const KEY = 'operator-chat-key-0123456789abcdef';
let open: RunningAgent; // no keys configured
let keyed: RunningAgent; // CHAT_API_KEYS set
let turnsRun = 0;

type Message = { role: string; content: string };
const turnOf = (reply: string) => JSON.parse(/```json\n([\s\S]*?)\n```/.exec(reply)![1]!) as { turns: number; context_id: string };

async function chat(
  agent: RunningAgent,
  messages: Message[],
  headers: Record<string, string> = {},
): Promise<{ status: number; reply: string; body: Record<string, unknown> }> {
  const response = await fetch(`${agent.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'helper', messages, stream: false }),
  });
  const body = (await response.json()) as Record<string, unknown>;
  return { status: response.status, reply: String((body.message as { content?: string } | undefined)?.content ?? ''), body };
}

beforeAll(async () => {
  const start = async (env: Record<string, string>) => {
    const fixture = createFixtureAgent('helper');
    const original = fixture.core.executeTask.bind(fixture.core);
    fixture.core.executeTask = (name, options) => {
      turnsRun += 1;
      return original(name, options);
    };
    return runAgent(fixture.core, fixture.agent, { port: 0, a2a: false, chatCompat: true, env: { AGENT_NAME: 'helper', LOG_LEVEL: 'error', ...env } });
  };
  open = await start({});
  keyed = await start({ CHAT_API_KEYS: KEY });
});

afterAll(async () => {
  await open?.close();
  await keyed?.close();
});

describe('chat-compat conversations are bound to the caller', () => {
  it('an anonymous replay of another client history starts a new conversation', async () => {
    const first = await chat(open, [{ role: 'user', content: 'turn' }]);
    const replay = await chat(open, [
      { role: 'user', content: 'turn' },
      { role: 'assistant', content: first.reply },
      { role: 'user', content: 'turn' },
    ]);
    expect(turnOf(replay.reply).turns).toBe(1);
    expect(turnOf(replay.reply).context_id).not.toBe(turnOf(first.reply).context_id);
  });

  it('session tokens keep each caller to their own conversations', async () => {
    const token = async () =>
      (
        (await (await fetch(`${open.url}/session/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as {
          session_token: string;
        }
      ).session_token;
    const [alice, mallory] = [await token(), await token()];
    const a1 = await chat(open, [{ role: 'user', content: 'turn' }], { authorization: `Bearer ${alice}` });
    const history = [
      { role: 'user', content: 'turn' },
      { role: 'assistant', content: a1.reply },
      { role: 'user', content: 'turn' },
    ];
    const stolen = await chat(open, history, { authorization: `Bearer ${mallory}` });
    expect(turnOf(stolen.reply)).toMatchObject({ turns: 1 });
    expect(turnOf(stolen.reply).context_id).not.toBe(turnOf(a1.reply).context_id);
    const own = await chat(open, history, { authorization: `Bearer ${alice}` });
    expect(turnOf(own.reply)).toEqual({ turns: 2, context_id: turnOf(a1.reply).context_id });
  });

  it('with API keys, a request without a valid bearer is refused with 401, and Open WebUI headers name user and chat', async () => {
    const none = await chat(keyed, [{ role: 'user', content: 'turn' }]);
    expect(none.status).toBe(401);
    expect(String(none.body.error)).toMatch(/Bearer/);
    expect((await chat(keyed, [{ role: 'user', content: 'turn' }], { authorization: 'Bearer not-a-key-nor-a-session-token' })).status).toBe(401);

    const as = (user: string, chatId: string) => ({ authorization: `Bearer ${KEY}`, 'x-openwebui-user-id': user, 'x-openwebui-chat-id': chatId });
    const a1 = await chat(keyed, [{ role: 'user', content: 'turn' }], as('alice', 'chat-1'));
    const a2 = await chat(
      keyed,
      [
        { role: 'user', content: 'turn' },
        { role: 'assistant', content: 'edited by the UI' },
        { role: 'user', content: 'turn' },
      ],
      as('alice', 'chat-1'),
    );
    expect(turnOf(a2.reply)).toEqual({ turns: 2, context_id: turnOf(a1.reply).context_id });
    const bob = await chat(
      keyed,
      [
        { role: 'user', content: 'turn' },
        { role: 'assistant', content: a1.reply },
        { role: 'user', content: 'turn' },
      ],
      as('bob', 'chat-1'),
    );
    expect(turnOf(bob.reply).context_id).not.toBe(turnOf(a1.reply).context_id);
  });

  it("answers Open WebUI's background tasks without running the agent's task", async () => {
    const before = turnsRun;
    const title = await chat(open, [{ role: 'user', content: '### Task:\nGenerate a concise title for the chat.\n### Chat History:\nUSER: turn' }]);
    expect(title.status).toBe(200);
    expect(JSON.parse(title.reply)).toMatchObject({ title: expect.any(String), tags: [], follow_ups: [] });
    expect(turnsRun).toBe(before);
  });

  it('a regenerated reply is answered again without running the task a second time', async () => {
    const headers = { authorization: `Bearer ${KEY}` };
    const first = await chat(keyed, [{ role: 'user', content: 'turn' }], headers);
    const history = [
      { role: 'user', content: 'turn' },
      { role: 'assistant', content: first.reply },
      { role: 'user', content: 'turn' },
    ];
    const second = await chat(keyed, history, headers);
    const before = turnsRun;
    const regenerated = await chat(keyed, history, headers);
    expect(turnsRun).toBe(before);
    expect(regenerated.reply).toBe(second.reply);
    expect(turnOf(regenerated.reply).turns).toBe(2);
  });
});
