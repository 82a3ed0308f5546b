/**
 * Issue 33, A2A push configs: a caller registers a webhook with a token and
 * credentials, then anyone who can read the task's configs asks for them back
 * (create's answer, Get and List, over JSON-RPC and REST). A breach is an
 * answer that holds the token or the credentials in clear: they are
 * write-only. The webhook itself must still receive them.
 */
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import { join } from 'node:path';
import { signRequest } from '../../../runtime/a2a/signing/request-signature.js';
import { createSigningKey, decodeSecret, generateSecret } from '../../../runtime/a2a/signing/signing-key.js';
import { freePort, REPO_ROOT, startCli } from '../child-services.js';
import { attackTally, type GuardAttackClass, type GuardAttackContext, type GuardAttackResult } from './guard-attack.js';

const TOKEN = 'push-token-do-not-show';
const CREDENTIALS = 'push-credentials-do-not-show';

async function run(context: GuardAttackContext): Promise<GuardAttackResult> {
  const tally = attackTally();
  const secret = generateSecret();
  const caller = createSigningKey({ id: 'orchestrator-1', agent: 'orchestrator', secret: decodeSecret(secret)! });
  const keys = JSON.stringify({
    keys: [
      { id: 'orchestrator-1', agent: 'orchestrator', secret },
      { id: 'executor-1', agent: 'executor', secret: generateSecret() },
    ],
  });
  // The webhook: records the token it is sent.
  const received: string[] = [];
  const hook = http.createServer((req, res) => {
    received.push(String(req.headers['x-a2a-notification-token'] ?? ''));
    req.resume();
    res.writeHead(200).end();
  });
  hook.listen(0, '127.0.0.1');
  await once(hook, 'listening');
  const hookPort = (hook.address() as { port: number }).port;
  const port = await freePort();
  const card = join(context.scratch, 'executor.json');
  await writeFile(
    card,
    JSON.stringify({
      name: 'executor',
      description: 'push config target',
      url: `http://127.0.0.1:${port}/`,
      version: '1.0.0',
      capabilities: { streaming: true, pushNotifications: true },
      skills: [],
    }),
  );
  const agent = await startCli({
    name: 'agent',
    args: ['serve', 'agent', '--module', join(REPO_ROOT, 'dist/bench/support/security-agent.js'), '--port', String(port)],
    port,
    env: { AGENT_CARD: card, A2A_KEYS: keys, A2A_VALIDATION_MODE: 'disabled', A2A_PUSH_ALLOWED_HOSTS: `127.0.0.1:${hookPort}` },
  });
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<string> => {
    const text = body === undefined ? '' : JSON.stringify(body);
    const headers = signRequest({ method, path, body: text, source: 'orchestrator', target: 'executor', key: caller });
    const response = await fetch(`${agent.url}${path}`, {
      method,
      headers: { ...headers, 'A2A-Version': '1.0', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: text }),
    });
    return response.text();
  };
  const rpc = (method: string, params: unknown) => call('POST', '/', { jsonrpc: '2.0', id: 1, method, params });
  const leaks = (answer: string) => answer.includes(TOKEN) || answer.includes(CREDENTIALS);
  try {
    const made = JSON.parse(
      await rpc('SendMessage', { message: { messageId: 'push-1', role: 'ROLE_USER', parts: [{ text: 'hello' }] }, configuration: { returnImmediately: true } }),
    ) as { result?: { task?: { id?: string } } };
    const taskId = made.result?.task?.id;
    if (!taskId) throw new Error(`push-configs: no task was made: ${JSON.stringify(made).slice(0, 300)}`);
    const config = (id: string) => ({
      taskId,
      id,
      url: `http://127.0.0.1:${hookPort}/hook`,
      token: TOKEN,
      authentication: { scheme: 'Bearer', credentials: CREDENTIALS },
    });
    const created = await rpc('CreateTaskPushNotificationConfig', config('cfg-rpc'));
    if (!created.includes('cfg-rpc')) throw new Error(`push-configs: the config was not created: ${created.slice(0, 300)}`);
    tally.check(!leaks(created), 'JSON-RPC CreateTaskPushNotificationConfig answered the token or credentials');
    tally.check(!leaks(await rpc('GetTaskPushNotificationConfig', { taskId, id: 'cfg-rpc' })), 'JSON-RPC GetTaskPushNotificationConfig returned them');
    tally.check(!leaks(await rpc('ListTaskPushNotificationConfigs', { taskId })), 'JSON-RPC ListTaskPushNotificationConfigs returned them');
    const restCreated = await call('POST', `/rest/tasks/${taskId}/pushNotificationConfigs`, config('cfg-rest'));
    if (!restCreated.includes('cfg-rest')) throw new Error(`push-configs: the REST config was not created: ${restCreated.slice(0, 300)}`);
    tally.check(!leaks(restCreated), 'REST create answered the token or credentials');
    tally.check(!leaks(await call('GET', `/rest/tasks/${taskId}/pushNotificationConfigs/cfg-rest`)), 'REST GET of one config returned them');
    tally.check(!leaks(await call('GET', `/rest/tasks/${taskId}/pushNotificationConfigs`)), 'REST list returned them');
    // Still used for sending: a new task with the config given at send time gets its notifications with the token.
    await rpc('SendMessage', {
      message: { messageId: 'push-2', role: 'ROLE_USER', parts: [{ text: 'hello again' }] },
      configuration: { taskPushNotificationConfig: { url: `http://127.0.0.1:${hookPort}/hook`, token: TOKEN } },
    });
    const deadline = Date.now() + 10_000;
    while (!received.includes(TOKEN) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    if (!received.includes(TOKEN)) throw new Error('push-configs: the webhook never received its token (redacted where it must be kept?)');
  } finally {
    await agent.stop();
    await new Promise<void>((resolve) => hook.close(() => resolve()));
  }
  return tally.result();
}

export const pushConfigsAttack: GuardAttackClass = { name: 'push-configs', run };
