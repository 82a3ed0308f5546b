import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentCard } from '@a2a-js/sdk';
import { parseAgentCard } from '../../runtime/a2a/agent-card.js';
import { createSigningKey, decodeSecret, generateSecret, type SigningKey } from '../../runtime/a2a/signing/signing-key.js';
import { freePort, waitFor } from '../support/net.js';
import { REPO_ROOT, startService, type Service } from '../support/processes.js';

/** The shipped policy directory, served by `policy serve`. */
export const POLICIES = join(REPO_ROOT, 'policies');

/** Services started for one test file; `stopAll` stops every one still running (in reverse order). */
export class Processes {
  readonly #services: Service[] = [];

  async start(options: Parameters<typeof startService>[0]): Promise<Service> {
    const service = await startService(options);
    this.#services.push(service);
    return service;
  }

  async stopAll(): Promise<void> {
    const services = this.#services.splice(0).reverse();
    await Promise.all(services.map((service) => service.stop()));
  }

  /** True when none of the started processes is still alive. */
  allStopped(): boolean {
    return this.#services.every((service) => service.process.exitCode !== null || service.process.signalCode !== null);
  }
}

/** The policy engine (`policy serve`) over the shipped policies, on a free port. */
export async function startPolicyEngine(processes: Processes): Promise<Service> {
  const port = await freePort();
  return processes.start({ name: 'policy engine', port, args: ['policy', 'serve', '--addr', `127.0.0.1:${port}`, '--no-watch', POLICIES] });
}

/** The Guardian (`serve guardian`) in front of `opaUrl`, on a free port, audit lines on stderr. */
export async function startGuardianProcess(processes: Processes, opaUrl: string): Promise<Service> {
  const port = await freePort();
  return processes.start({
    name: 'guardian',
    port,
    args: ['serve', 'guardian', '--addr', `127.0.0.1:${port}`, '--opa-url', opaUrl],
    env: { A2A_ENABLE_AUDIT_LOG: 'true' },
  });
}

/** A key file entry: what goes into the file, and the parsed key to sign with in the test. */
export interface TestKey {
  id: string;
  agent: string;
  secret: string;
  key: SigningKey;
}

export function testKey(id: string, agent: string): TestKey {
  const secret = generateSecret();
  return { id, agent, secret, key: createSigningKey({ id, agent, secret: decodeSecret(secret)! }) };
}

/** A scratch directory with the tutorial cards (ports rewritten) and a keys file (mode 0600, outside the cards directory). */
export interface Workspace {
  readonly dir: string;
  readonly cardsDir: string;
  readonly keysFile: string;
  /** Path of the rewritten card of `name` (`planner`, `executor`). */
  cardPath(name: string): string;
  /** The parsed rewritten card of `name`. */
  card(name: string): Promise<AgentCard>;
  remove(): Promise<void>;
}

/**
 * Copies `agent_cards/<name>.json` for each entry of `ports` into
 * `<tmp>/cards/` with the URL pointing at `http://127.0.0.1:<port>/`, and
 * writes `keys` to `<tmp>/secrets/a2a-keys.json` (mode 0600).
 */
export async function createWorkspace(options: { ports: Record<string, number>; keys: readonly TestKey[] }): Promise<Workspace> {
  const dir = await mkdtemp(join(tmpdir(), 'fw-a2a-e2e-'));
  const cardsDir = join(dir, 'cards');
  const secretsDir = join(dir, 'secrets');
  await mkdir(cardsDir);
  await mkdir(secretsDir, { mode: 0o700 });
  for (const [name, port] of Object.entries(options.ports)) {
    const shipped = JSON.parse(await readFile(join(REPO_ROOT, 'agent_cards', `${name}.json`), 'utf8')) as Record<string, unknown>;
    await writeFile(join(cardsDir, `${name}.json`), JSON.stringify({ ...shipped, url: `http://127.0.0.1:${port}/` }, null, 2));
  }
  const keysFile = join(secretsDir, 'a2a-keys.json');
  await writeFile(keysFile, JSON.stringify({ keys: options.keys.map(({ id, agent, secret }) => ({ id, agent, secret })) }), { mode: 0o600 });
  await chmod(keysFile, 0o600);
  const cardPath = (name: string) => join(cardsDir, `${name}.json`);
  return {
    dir,
    cardsDir,
    keysFile,
    cardPath,
    card: async (name) => parseAgentCard(JSON.parse(await readFile(cardPath(name), 'utf8')), { file: cardPath(name) })[0],
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A card for an agent that has no process (e.g. `untrusted`, `database`), as policies see it. */
export function virtualCard(name: string, port = 9): AgentCard {
  return parseAgentCard({
    name,
    description: `${name} agent`,
    url: `http://127.0.0.1:${port}/`,
    version: '0.1.0',
    capabilities: { streaming: true, pushNotifications: false },
    skills: [],
  })[0];
}

/** One audit line an agent or the Guardian wrote on stderr. */
export interface AuditLine {
  audit: 'a2a';
  source: string;
  target: string;
  decision: 'allowed' | 'denied' | 'skipped' | 'signature_failure';
  reason: string;
  checked_by: 'client' | 'server' | 'guardian';
  message_sha256: string;
  timestamp: string;
}

/** The audit lines in a process's output, in order. */
export function auditLines(output: string): AuditLine[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"audit":"a2a"'))
    .map((line) => JSON.parse(line) as AuditLine);
}

/** Waits until `service` has written at least `count` audit lines (they may trail the HTTP answer by a tick). */
export async function waitForAuditLines(service: Service, count: number, timeoutMs = 5_000): Promise<AuditLine[]> {
  await waitFor(async () => auditLines(service.output()).length >= count, `${count} audit line(s) from ${service.name}`, timeoutMs);
  return auditLines(service.output());
}

/** Waits until at least `count` audit lines of `service` satisfy `match`, and returns those lines. */
export async function auditLinesWhere(service: Service, match: (line: AuditLine) => boolean, count = 1, timeoutMs = 5_000): Promise<AuditLine[]> {
  await waitFor(async () => auditLines(service.output()).filter(match).length >= count, `${count} matching audit line(s) from ${service.name}`, timeoutMs);
  return auditLines(service.output()).filter(match);
}

/** The JSON-RPC v1.0 `SendMessage` body with one text part. */
export function sendMessageBody(text: string, id: number | string = 1): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'SendMessage',
    params: { message: { messageId: `m-${String(id)}-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ text }] } },
  });
}

/** POSTs a raw JSON-RPC body to an agent's A2A endpoint with the given (signature) headers. */
export function postA2A(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...headers } });
}

export { freePort, waitFor };
export type { Service };
