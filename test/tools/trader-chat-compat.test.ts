import { Ollama, type Message } from 'ollama';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent, type RunningAgent } from '../../runtime/agent/run-agent.js';
import { createTraderAgent } from '../../runtime/examples/trader-agent.js';
import { startStack } from '../guardian/stack.js';

// The trading example through the Ollama chat API as Open WebUI uses it
// (the official `ollama` client, an API key, Open WebUI's forwarded user and
// chat headers): a refused trade, one waiting for approval and approved by
// the next message of the same chat, and a chat that declines.

const KEY = 'open-webui-key-0123456789abcdef';
let stack: Awaited<ReturnType<typeof startStack>>;
let trader: RunningAgent;

beforeAll(async () => {
  stack = await startStack();
  const { core, agent } = createTraderAgent({ env: { LOG_LEVEL: 'error', GUARDIAN_URL: stack.guardian.url, A2A_VALIDATION_MODE: 'strict' } });
  trader = await runAgent(core, agent, { port: 0, a2a: false, chatCompat: true, env: { LOG_LEVEL: 'error', CHAT_API_KEYS: KEY } });
});

afterAll(async () => {
  await trader?.close();
  await stack?.close();
});

/** A chat window: its own Open WebUI chat id, the whole history sent each turn, as Open WebUI does. */
function chatWindow(chatId: string) {
  const client = new Ollama({ host: trader.url, headers: { Authorization: `Bearer ${KEY}`, 'X-OpenWebUI-User-Id': 'user-1', 'X-OpenWebUI-Chat-Id': chatId } });
  const messages: Message[] = [];
  return async (content: string): Promise<string> => {
    messages.push({ role: 'user', content });
    let reply = '';
    for await (const part of await client.chat({ model: 'trader', messages, stream: true })) reply += part.message.content;
    messages.push({ role: 'assistant', content: reply });
    return reply;
  };
}

describe('the trader through /api/chat (Open WebUI style)', () => {
  it('refuses a trade over the maximum with the policy reason', async () => {
    const say = chatWindow('chat-refused');
    const reply = await say('buy 60000 of ACME');
    expect(reply).toContain('Tool place_trade refused: amount 60000 is at or above the limit of 50000');
    expect(reply).not.toMatch(/Placed order/);
  });

  it('asks for approval in the chat, and "yes" in the same chat runs the trade once', async () => {
    const say = chatWindow('chat-approve');
    const asked = await say('buy 10000 of ACME');
    expect(asked).toContain('Approval needed: the agent wants to call place_trade');
    expect(asked).not.toMatch(/Placed order/);
    const approved = await say('yes, go ahead');
    expect(approved).toMatch(/Approved: calling tool place_trade/);
    expect(approved).toMatch(/Placed order-\d+: 10000 USD of ACME\./);
    // Nothing is waiting any more: another "yes" places nothing.
    const again = await say('yes');
    expect(again).not.toMatch(/Placed order/);
  });

  it('does not let another chat approve a trade waiting in this one', async () => {
    const say = chatWindow('chat-waiting');
    expect(await say('buy 20000 of ACME')).toContain('Approval needed');
    const stranger = chatWindow('chat-stranger');
    expect(await stranger('yes, go ahead')).not.toMatch(/Placed order/);
  });

  it('a "no" in the chat declines the trade', async () => {
    const say = chatWindow('chat-decline');
    expect(await say('buy 15000 of ACME')).toContain('Approval needed');
    const declined = await say('no, cancel it');
    expect(declined).toMatch(/Declined: place_trade did not run/);
    expect(declined).not.toMatch(/Placed order/);
  });
});
