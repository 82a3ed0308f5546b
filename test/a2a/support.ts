import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Role, TaskState, type Message, type Part, type StreamResponse } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { AgentResponse } from '../../runtime/core/agent-response.js';
import { FrameworkAgent } from '../../runtime/core/framework-agent.js';
import { FrameworkCore } from '../../runtime/core/framework-core.js';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { KeyRing } from '../../runtime/a2a/signing/key-ring.js';
import { createSigningKey, decodeSecret, generateSecret, type SigningKey } from '../../runtime/a2a/signing/signing-key.js';
import { signingFetch } from '../../runtime/a2a/signing-fetch.js';
import type { TaskQuery } from '../../runtime/core/task-input.js';
import { runAgent } from '../../runtime/agent/run-agent.js';
import { createA2AServer, type A2AServer } from '../../runtime/a2a/a2a-server.js';
import { parseAgentCard } from '../../runtime/a2a/agent-card.js';
import { loadAgentConfig } from '../../runtime/core/config.js';
import { silentLogger } from '../../runtime/core/logger.js';
import { createBaseApp } from '../../runtime/core/server/base-app.js';
import { listen, type Listening } from '../../runtime/core/server/listen.js';
import type { Hono } from 'hono';

export { startStack } from '../guardian/stack.js';

/** The shipped agent cards directory. */
export const CARDS_DIR = fileURLToPath(new URL('../../agent_cards', import.meta.url));

/** A scratch directory, removed by the returned `remove`. */
export async function scratchDir(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'fw-a2a-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes a card file (`name.json`) with the spec's fields plus `fields`; returns its path. */
export async function writeCard(dir: string, name: string, fields: Record<string, unknown> = {}): Promise<string> {
  const path = join(dir, `${name}.json`);
  const card = {
    name,
    description: `${name} test agent`,
    url: 'http://127.0.0.1:0/',
    version: '1.0.0',
    capabilities: { streaming: 'True', pushNotifications: 'False' },
    skills: [],
    ...fields,
  };
  await writeFile(path, JSON.stringify(card));
  return path;
}

/** Fresh keys, one per agent (`<agent>-1`), as A2A_KEYS JSON and as SigningKeys. */
export function makeKeys(agents: readonly string[]): { json: string; keys: Map<string, SigningKey>; ring: KeyRing; secrets: string[] } {
  const entries = agents.map((agent) => ({ id: `${agent}-1`, agent, secret: generateSecret() }));
  const keys = new Map(entries.map((e) => [e.agent, createSigningKey({ id: e.id, agent: e.agent, secret: decodeSecret(e.secret)! })]));
  return { json: JSON.stringify({ keys: entries }), keys, ring: new KeyRing([...keys.values()]), secrets: entries.map((e) => e.secret) };
}

/** What the probe agent's task observed. */
export interface Probe {
  calls: { query: TaskQuery; contextId: string | undefined }[];
  /** The signal of each `slow` run, and whether it fired. */
  slowSignals: AbortSignal[];
}

/**
 * A core whose entry task records every call and answers by the first word:
 * `stream` (status, text, result), `result`, `ask` (plan confirmation),
 * `fail`, `slow` (waits for its signal); anything else (or a data part) is
 * echoed back as `{received: query}`.
 */
export function probeAgent(name: string): { core: FrameworkCore; agent: FrameworkAgent; probe: Probe } {
  const probe: Probe = { calls: [], slowSignals: [] };
  const core = new FrameworkCore();
  const agent = new FrameworkAgent({ agentName: name, description: `${name} test agent`, version: '1.0.0' });
  core.task({ name: 'route_to_task' }, async function* ({ query, contextId, signal }) {
    probe.calls.push({ query, contextId });
    const word = typeof query === 'string' ? (query.split(' ')[0] ?? '') : '';
    switch (word) {
      case 'stream':
        yield AgentResponse.status('Working on it');
        yield AgentResponse.text('half way');
        yield AgentResponse.result({ outcome: 'streamed', n: 3 });
        return;
      case 'result':
        yield AgentResponse.result({ outcome: 'done', n: 42 });
        return;
      case 'ask':
        yield AgentResponse.status('Planning');
        yield AgentResponse.inputRequired('Approve the plan?', { actionType: 'plan_confirmation' });
        return;
      case 'fail':
        yield AgentResponse.error('the thing broke', { code: 'boom' });
        return;
      case 'slow':
        probe.slowSignals.push(signal);
        yield AgentResponse.status('started');
        await new Promise((resolve) => {
          signal.addEventListener('abort', resolve, { once: true });
          setTimeout(resolve, 20_000).unref();
        });
        yield AgentResponse.result({ outcome: 'slow finished' });
        return;
      default:
        yield AgentResponse.result({ received: query });
    }
  });
  return { core, agent, probe };
}

/** Runs `core` as an A2A-only agent on a free port. */
/**
 * The probe agent's A2A server (card `probe` at `/rpc/`, streaming) mounted
 * on a base app and listening on a free port, its JSON-RPC route answered
 * below Hono as a served agent's is.
 */
export async function serveProbe(env: Record<string, string>): Promise<{ server: A2AServer; app: Hono; listening: Listening }> {
  const [card] = parseAgentCard({
    name: 'probe',
    description: 'probe',
    url: 'http://127.0.0.1:0/rpc/',
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false },
    skills: [],
  });
  const server = await createA2AServer({ core: probeAgent('probe').core, card, config: loadAgentConfig({ env }), logger: silentLogger, env });
  const app = createBaseApp({ logger: silentLogger });
  const listening = await listen(app, { host: '127.0.0.1', port: 0, direct: server.mount(app) });
  return { server, app, listening };
}

export function runProbe(core: FrameworkCore, agent: FrameworkAgent, env: Record<string, string>): Promise<RunningAgent> {
  return runAgent(core, agent, { port: 0, host: '127.0.0.1', mode: 'a2a', env: { LOG_LEVEL: 'error', SESSION_BACKEND: 'memory', ...env } });
}

/** The official SDK client for the agent at `url` (card fetched from the well-known path), signing as `source`. */
export function sdkClient(url: string, options: { source: string; target: string; key: SigningKey | undefined }): Promise<Client> {
  return new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl: signingFetch(options) })] }).createFromUrl(url);
}

/** A user message with one text part, or one data part for an object. */
export function message(payload: string | Record<string, unknown>, options: { contextId?: string } = {}): Message {
  const part: Part =
    typeof payload === 'string'
      ? { content: { $case: 'text', value: payload }, metadata: undefined, filename: '', mediaType: 'text/plain' }
      : { content: { $case: 'data', value: payload }, metadata: undefined, filename: '', mediaType: 'application/json' };
  return {
    messageId: randomUUID(),
    contextId: options.contextId ?? '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [part],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** Everything an async iterable yields. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/** A compact view of one SDK stream event: `[kind, state or artifact name, text or data]`. */
export function describeEvent(event: StreamResponse): [string, string, unknown] {
  const payload = event.payload;
  switch (payload?.$case) {
    case 'task':
      return [
        'task',
        TaskState[payload.value.status?.state ?? 0] ?? 'unknown',
        payload.value.status?.message ? partValue(payload.value.status.message.parts) : undefined,
      ];
    case 'statusUpdate':
      return [
        'status',
        TaskState[payload.value.status?.state ?? 0] ?? 'unknown',
        payload.value.status?.message ? partValue(payload.value.status.message.parts) : undefined,
      ];
    case 'artifactUpdate':
      return ['artifact', payload.value.artifact?.name ?? '', partValue(payload.value.artifact?.parts ?? [])];
    case 'message':
      return ['message', '', partValue(payload.value.parts)];
    default:
      return ['none', '', undefined];
  }
}

/** The value of the only part: its text or its data. */
export function partValue(parts: readonly Part[]): unknown {
  if (parts.length !== 1) return parts.map((part) => part.content?.value);
  return parts[0]?.content?.value;
}
