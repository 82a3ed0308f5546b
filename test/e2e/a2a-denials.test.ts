/**
 * End to end: every way a call is refused, at the receiving executor (a real
 * process) and at the caller. Raw signed fetches for the signature checks,
 * `agentConnection` and the official SDK client for the library paths, and
 * the validator against the real Guardian for the policy and the modes.
 * Run `npm run build` first.
 */
import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import type { AgentCard } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userMessage } from '../../runtime/a2a/a2a-parts.js';
import { A2AResponse } from '../../runtime/a2a/a2a-response.js';
import type { A2AChunk } from '../../runtime/a2a/a2a-chunk.js';
import { agentConnection } from '../../runtime/a2a/agent-connection.js';
import { messageDigest } from '../../runtime/a2a/audit-log.js';
import { KeyRing } from '../../runtime/a2a/signing/key-ring.js';
import { signRequest } from '../../runtime/a2a/signing/request-signature.js';
import { getValidator } from '../../runtime/a2a/validator.js';
import { PermissionError } from '../../runtime/a2a/errors/permission-error.js';
import { SignatureError } from '../../runtime/a2a/errors/signature-error.js';
import {
  auditLines,
  createWorkspace,
  freePort,
  postA2A,
  Processes,
  sendMessageBody,
  startGuardianProcess,
  startPolicyEngine,
  testKey,
  virtualCard,
  auditLinesWhere,
  waitForAuditLines,
  type AuditLine,
  type Service,
  type TestKey,
  type Workspace,
} from './a2a-support.js';

const processes = new Processes();
const planner = testKey('planner-1', 'planner');
const untrusted = testKey('untrusted-1', 'untrusted');
/** Same id as the planner's key, another secret. */
const forged = testKey('planner-1', 'planner');
/** A key the executor never heard of. */
const stranger = testKey('stranger-1', 'planner');

let workspace: Workspace;
let guardian: Service;
let executor: Service;
let permissiveDown: Service;
let strictDown: Service;
let downUrl: string;
let plannerCard: AgentCard;
let executorCard: AgentCard;

function startExecutor(name: string, port: number, env: Record<string, string>): Promise<Service> {
  return processes.start({
    name,
    port,
    args: ['serve', 'agent', '--example', 'executor', '--a2a-only', '--port', String(port)],
    env: { AGENT_CARD: workspace.cardPath('executor'), A2A_KEYS_FILE: workspace.keysFile, A2A_ENABLE_AUDIT_LOG: 'true', ...env },
  });
}

beforeAll(async () => {
  const executorPort = await freePort();
  workspace = await createWorkspace({ ports: { planner: await freePort(), executor: executorPort }, keys: [planner, untrusted] });
  [plannerCard, executorCard] = [await workspace.card('planner'), await workspace.card('executor')];
  const policy = await startPolicyEngine(processes);
  guardian = await startGuardianProcess(processes, policy.url);
  downUrl = `http://127.0.0.1:${await freePort()}`;
  [executor, permissiveDown, strictDown] = await Promise.all([
    startExecutor('executor (strict)', executorPort, { A2A_VALIDATION_MODE: 'strict', GUARDIAN_URL: guardian.url }),
    startExecutor('executor (permissive, Guardian down)', await freePort(), { A2A_VALIDATION_MODE: 'permissive', GUARDIAN_URL: downUrl }),
    startExecutor('executor (strict, Guardian down)', await freePort(), { A2A_VALIDATION_MODE: 'strict', GUARDIAN_URL: downUrl }),
  ]);
}, 60_000);

afterAll(async () => {
  await processes.stopAll();
  expect(processes.allStopped()).toBe(true);
  await workspace?.remove();
});

/** Signed headers for `body` to the executor at path `/`. */
function signed(options: { body: string; key?: TestKey; source?: string; now?: number }): Record<string, string> {
  const key = options.key ?? planner;
  return signRequest({
    method: 'POST',
    path: '/',
    body: options.body,
    source: options.source ?? key.agent,
    target: 'executor',
    key: key.key,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
}

/**
 * The JSON answer of a refused request, and the executor's audit lines about
 * it: those whose message digest is `digest` (the raw body for a signature
 * failure, the message text for a policy decision). Matching by digest, not
 * by position, keeps late lines of earlier requests out.
 */
async function refusal(
  service: Service,
  response: Response,
  digest: string,
): Promise<{ status: number; body: { code: string; message: string }; audit: AuditLine[] }> {
  const body = (await response.json()) as { code: string; message: string };
  const audit = await auditLinesWhere(service, (line) => line.message_sha256 === digest);
  return { status: response.status, body, audit };
}

describe('signature checks at the executor (raw signed requests)', () => {
  it('accepts a properly signed call from the planner', async () => {
    const body = sendMessageBody('Book the room');
    const response = await postA2A(`${executor.url}/`, body, signed({ body }));
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { result?: unknown; error?: unknown };
    expect(answer.error).toBeUndefined();
    expect(JSON.stringify(answer.result)).toContain('Done: Book the room');
  });

  it('refuses a tampered body (signature over another body) with 401 and a signature_failure audit line', async () => {
    const headers = signed({ body: sendMessageBody('Book the room', 7) });
    const tampered = sendMessageBody('Delete everything', 7);
    const { status, body, audit } = await refusal(executor, await postA2A(`${executor.url}/`, tampered, headers), messageDigest(tampered));
    expect(status).toBe(401);
    expect(body.code).toBe('signature_invalid');
    expect(audit).toEqual([expect.objectContaining({ source: 'planner', target: 'executor', decision: 'signature_failure', checked_by: 'server' })]);
    expect(audit[0]!.reason).toMatch(/^bad_signature: /);
  });

  it('refuses the right key id signed with the wrong secret', async () => {
    const body = sendMessageBody('Book the room');
    const {
      status,
      body: answer,
      audit,
    } = await refusal(executor, await postA2A(`${executor.url}/`, body, signed({ body, key: forged })), messageDigest(body));
    expect(status).toBe(401);
    expect(answer.code).toBe('signature_invalid');
    expect(audit[0]!.reason).toMatch(/^bad_signature: /);
  });

  it('refuses a key id it does not know', async () => {
    const body = sendMessageBody('Book the room');
    const {
      status,
      body: answer,
      audit,
    } = await refusal(executor, await postA2A(`${executor.url}/`, body, signed({ body, key: stranger })), messageDigest(body));
    expect(status).toBe(401);
    expect(answer.code).toBe('signature_invalid');
    expect(answer.message).toContain('stranger-1');
    expect(audit[0]!.reason).toMatch(/^unknown_key: /);
  });

  it('refuses a caller claiming to be another agent than the key owner', async () => {
    const body = sendMessageBody('Book the room');
    const headers = { ...signed({ body }), 'x-framework-agent': 'orchestrator' };
    const { status, body: answer, audit } = await refusal(executor, await postA2A(`${executor.url}/`, body, headers), messageDigest(body));
    expect(status).toBe(401);
    expect(answer.code).toBe('signature_invalid');
    expect(audit).toEqual([expect.objectContaining({ source: 'orchestrator', decision: 'signature_failure' })]);
    expect(audit[0]!.reason).toMatch(/^agent_mismatch: /);
  });

  it('accepts a request once and refuses the same headers again (replayed nonce)', async () => {
    const body = sendMessageBody('Book the room');
    const headers = signed({ body });
    const first = await postA2A(`${executor.url}/`, body, headers);
    expect(first.status).toBe(200);
    await first.body?.cancel();
    const { status, body: answer, audit } = await refusal(executor, await postA2A(`${executor.url}/`, body, headers), messageDigest(body));
    expect(status).toBe(401);
    expect(answer.code).toBe('signature_invalid');
    expect(audit[0]!.reason).toMatch(/^replayed_nonce: /);
  });

  it('refuses a timestamp 301 s old', async () => {
    const body = sendMessageBody('Book the room');
    const {
      status,
      body: answer,
      audit,
    } = await refusal(executor, await postA2A(`${executor.url}/`, body, signed({ body, now: Date.now() - 301_000 })), messageDigest(body));
    expect(status).toBe(401);
    expect(answer.code).toBe('signature_invalid');
    expect(audit[0]!.reason).toMatch(/^stale_timestamp: /);
  });

  it('refuses the official SDK client sending unsigned', async () => {
    const statuses: number[] = [];
    const fetchImpl: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      statuses.push(response.status);
      return response;
    };
    const client = await new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })] }).createFromUrl(executor.url);
    await expect(
      client.sendMessage({ tenant: '', message: userMessage({ payload: 'Book the room' }), configuration: undefined, metadata: undefined }),
    ).rejects.toThrow();
    expect(statuses).toContain(401);
    const audit = await auditLinesWhere(executor, (line) => line.reason.startsWith('unsigned: '));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ source: 'unknown', decision: 'signature_failure' });
    expect(audit[0]!.reason).toMatch(/^unsigned: /);
  });
});

describe('policy checks at the executor and at the caller', () => {
  it('stops a caller that skipped its client-side check: signed by untrusted, refused by the server-side policy (403)', async () => {
    const text = 'Book the room (sent by untrusted, unchecked)';
    const body = sendMessageBody(text);
    const response = await postA2A(`${executor.url}/`, body, signed({ body, key: untrusted }));
    const { status, body: answer, audit } = await refusal(executor, response, messageDigest(text));
    expect(status).toBe(403);
    expect(answer.code).toBe('permission_denied');
    expect(answer.message).toContain('no policy rule allows this agent pair');
    expect(audit).toEqual([expect.objectContaining({ source: 'untrusted', target: 'executor', decision: 'denied', checked_by: 'server' })]);
  });

  it('agentConnection from the planner card gets the outcome', async () => {
    const chunks: A2AChunk[] = [];
    const env = { A2A_KEYS_FILE: workspace.keysFile, GUARDIAN_URL: guardian.url, A2A_VALIDATION_MODE: 'strict' };
    for await (const chunk of agentConnection(plannerCard, executorCard, 'Send the invitations', { env })) chunks.push(chunk);
    expect(A2AResponse.outcome(A2AResponse.fromResults(chunks))).toBe('Done: Send the invitations');
    expect(chunks.at(-1)).toMatchObject({ kind: 'status', state: 'completed' });
  });

  it('agentConnection with stream: false gets the same outcome from the executor process, checked there as a streamed call is', async () => {
    const text = 'Send the invitations (one blocking send)';
    const chunks: A2AChunk[] = [];
    const env = { A2A_KEYS_FILE: workspace.keysFile, GUARDIAN_URL: guardian.url, A2A_VALIDATION_MODE: 'strict' };
    for await (const chunk of agentConnection(plannerCard, executorCard, text, { env, stream: false })) chunks.push(chunk);
    expect(A2AResponse.outcome(A2AResponse.fromResults(chunks))).toBe(`Done: ${text}`);
    expect(chunks.at(-1)).toMatchObject({ kind: 'task', state: 'completed' });
    // The executor verified the signature and asked the Guardian about this very message (its audit line names it by digest).
    const audit = await auditLinesWhere(executor, (line) => line.message_sha256 === messageDigest(text));
    expect(audit).toEqual([expect.objectContaining({ source: 'planner', target: 'executor', decision: 'allowed', checked_by: 'server' })]);
  });

  it('agentConnection signing with a secret the executor does not share throws SignatureError (its 401)', async () => {
    const env = { GUARDIAN_URL: guardian.url, A2A_VALIDATION_MODE: 'strict' };
    const run = async () => {
      for await (const chunk of agentConnection(plannerCard, executorCard, 'Book the room', { env, keys: new KeyRing([forged.key]) })) void chunk;
    };
    const error = await run().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SignatureError);
    expect(error).toMatchObject({ code: 'signature_invalid' });
    expect((error as Error).message).toContain('executor refused the call');
  });

  it('agentConnection from an untrusted card throws PermissionError before anything is sent', async () => {
    const text = 'Book the room (agentConnection from untrusted)';
    const env = { A2A_KEYS_FILE: workspace.keysFile, GUARDIAN_URL: guardian.url, A2A_VALIDATION_MODE: 'strict' };
    const run = async () => {
      for await (const chunk of agentConnection(virtualCard('untrusted'), executorCard, text, { env })) void chunk;
    };
    const error = await run().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(PermissionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'permission_denied', source: 'untrusted', target: 'executor', reason: 'no policy rule allows this agent pair' });
    // The Guardian was asked (by the caller); the executor heard nothing about this message.
    const asked = await auditLinesWhere(guardian, (line) => line.message_sha256 === messageDigest(text));
    expect(asked).toEqual([expect.objectContaining({ source: 'untrusted', target: 'executor', decision: 'denied', checked_by: 'guardian' })]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(auditLines(executor.output()).filter((line) => line.message_sha256 === messageDigest(text))).toEqual([]);
  });
});

describe('the validator against the real Guardian', () => {
  const strictEnv = () => ({ GUARDIAN_URL: guardian.url, A2A_VALIDATION_MODE: 'strict' });
  const card = (name: string): AgentCard => (name === 'planner' ? plannerCard : name === 'executor' ? executorCard : virtualCard(name));

  it.each([
    ['orchestrator', 'executor', true, 'allowed by policy'],
    ['orchestrator', 'database', true, 'allowed by policy'],
    ['planner', 'orchestrator', true, 'allowed by policy'],
    ['planner', 'executor', true, 'allowed by policy'],
    ['executor', 'semantic-layer', true, 'allowed by policy'],
    ['untrusted', 'semantic-layer', true, 'allowed by policy'],
    ['untrusted', 'database', false, 'untrusted agents may not call the database'],
    ['planner', 'database', false, 'no policy rule allows this agent pair'],
    ['executor', 'planner', false, 'no policy rule allows this agent pair'],
    ['untrusted', 'executor', false, 'no policy rule allows this agent pair'],
  ] as const)('%s → %s: %s', async (source, target, allowed, reason) => {
    expect(await getValidator({ env: strictEnv() }).validateA2AAccess(card(source), card(target), 'hello')).toEqual([allowed, reason]);
  });

  it('with the Guardian down: strict denies, permissive and disabled allow', async () => {
    const validate = (mode: string) =>
      getValidator({ env: { GUARDIAN_URL: downUrl, A2A_VALIDATION_MODE: mode } }).validateA2AAccess(plannerCard, executorCard, 'Book the room');
    const [strictAllowed, strictReason] = await validate('strict');
    expect(strictAllowed).toBe(false);
    expect(strictReason).toMatch(/unavailable/);
    expect(strictReason).toMatch(/strict mode denies/);
    const [permissiveAllowed, permissiveReason] = await validate('permissive');
    expect(permissiveAllowed).toBe(true);
    expect(permissiveReason).toMatch(/unavailable.*permissive mode allows/);
    expect(await validate('disabled')).toEqual([true, expect.stringContaining('disabled')]);
  });

  it('permissive with the Guardian up still denies untrusted → database with the policy reason', async () => {
    const validator = getValidator({ env: { GUARDIAN_URL: guardian.url, A2A_VALIDATION_MODE: 'permissive' } });
    expect(await validator.validateA2AAccess(virtualCard('untrusted'), virtualCard('database'), 'SELECT 1')).toEqual([
      false,
      'untrusted agents may not call the database',
    ]);
  });

  it('with neither GUARDIAN_URL nor OPA_URL: strict by default, and denied', async () => {
    const validator = getValidator({ env: {} });
    expect(validator.mode).toBe('strict');
    const [allowed, reason] = await validator.validateA2AAccess(plannerCard, executorCard, 'Book the room');
    expect(allowed).toBe(false);
    expect(reason).toMatch(/no Guardian or policy engine is configured.*strict mode denies/);
  });
});

describe('the executor with its Guardian down', () => {
  it('permissive: accepts a signed call (and says why in its audit line)', async () => {
    const body = sendMessageBody('Book the room');
    const response = await postA2A(`${permissiveDown.url}/`, body, signed({ body }));
    expect(response.status).toBe(200);
    expect(JSON.stringify(await response.json())).toContain('Done: Book the room');
    const [line] = await waitForAuditLines(permissiveDown, 1);
    expect(line).toMatchObject({ source: 'planner', target: 'executor', decision: 'allowed', checked_by: 'server' });
    expect(line!.reason).toMatch(/unavailable.*permissive mode allows/);
  });

  it('strict: refuses the same signed call with 403', async () => {
    const body = sendMessageBody('Book the room');
    const response = await postA2A(`${strictDown.url}/`, body, signed({ body }));
    expect(response.status).toBe(403);
    const answer = (await response.json()) as { code: string; message: string };
    expect(answer.code).toBe('permission_denied');
    expect(answer.message).toMatch(/unavailable.*strict mode denies/);
  });
});
