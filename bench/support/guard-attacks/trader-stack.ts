/**
 * The trading example as the numbers, time and identity attack classes
 * (issue 33) meet it: our policy server with the shipped policies, the
 * Guardian in front of it and the trader (`serve agent --example trader`,
 * strict mode), each a real child process on a free port; and the requests an
 * attacker sends them from outside.
 */
import { join } from 'node:path';
import { REPO_ROOT, freePort, startCli, type ChildService } from '../child-services.js';

export interface TraderStack {
  readonly policy: ChildService;
  readonly guardian: ChildService;
  readonly trader: ChildService;
  stop(): Promise<void>;
}

/** Starts the three services; `allowWrites` lets the operator change policies live (PUT /v1/policies). */
export async function startTraderStack(
  options: { allowWrites?: boolean; chatCompat?: boolean; traderEnv?: Record<string, string> } = {},
): Promise<TraderStack> {
  const [policyPort, guardianPort, traderPort] = [await freePort(), await freePort(), await freePort()];
  const started: ChildService[] = [];
  try {
    const policy = await startCli({
      name: 'policy server',
      args: [
        'policy',
        'serve',
        '--addr',
        `127.0.0.1:${policyPort}`,
        '--no-watch',
        ...(options.allowWrites ? ['--allow-writes'] : []),
        join(REPO_ROOT, 'policies'),
      ],
      port: policyPort,
    });
    started.push(policy);
    const guardian = await startCli({
      name: 'Guardian',
      args: ['serve', 'guardian', '--addr', `127.0.0.1:${guardianPort}`, '--opa-url', policy.url],
      port: guardianPort,
    });
    started.push(guardian);
    const trader = await startCli({
      name: 'trader',
      args: ['serve', 'agent', '--example', 'trader', '--port', String(traderPort), ...(options.chatCompat ? ['--chat-compat'] : [])],
      port: traderPort,
      env: { GUARDIAN_URL: guardian.url, A2A_VALIDATION_MODE: 'strict', ...options.traderEnv },
    });
    started.push(trader);
    return { policy, guardian, trader, stop: () => stopAll(started) };
  } catch (error) {
    await stopAll(started);
    throw error;
  }
}

async function stopAll(services: readonly ChildService[]): Promise<void> {
  await Promise.all(services.map((service) => service.stop()));
}

/** One turn of POST /query (json events): the texts of its events by kind. */
export interface Turn {
  readonly events: { event: string; data: Record<string, unknown> }[];
}

export async function startSession(agentUrl: string): Promise<string> {
  const response = await fetch(`${agentUrl}/session/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  return ((await response.json()) as { session_token: string }).session_token;
}

export async function ask(agentUrl: string, query: string, token: string): Promise<Turn> {
  const response = await fetch(`${agentUrl}/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, event_format: 'json' }),
  });
  if (response.status !== 200) throw new Error(`POST /query answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Turn;
}

/** All the text a turn showed (statuses, questions, answers), one line each. */
export const shown = (turn: Turn): string => turn.events.map((event) => String(event.data.text ?? '')).join('\n');

/** True when the trader reports an order placed (its own words: "Placed order-N: ..."). */
export const placed = (text: string): boolean => /Placed order-\d+/.test(text);

/** The last `max` characters of `text` on one line, for a breach report. */
export const tail = (text: string, max = 160): string => text.replace(/\s+/g, ' ').trim().slice(-max);

/** POSTs raw JSON text (numbers such as 1e400 kept as written). */
export function postRaw(url: string, body: string): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
}
