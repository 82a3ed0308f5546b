import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvent, messageDigest } from '../../runtime/a2a/audit-log.js';
import { DecisionLogShipper } from '../../runtime/a2a/decision-log-shipper.js';
import { signBundle } from '../../runtime/guardian/policy-bundle.js';
import { createValidator, decisionLogShipperFor } from '../../runtime/a2a/validator.js';
import { loadA2AConfig } from '../../runtime/core/config.js';
import { AuditListResponseSchema } from '../../runtime/guardian/guardian-responses.js';
import { startGuardian } from '../../runtime/guardian/start-guardian.js';
import { startPolicyServer, type RunningPolicyServer } from '../../runtime/policy/server/start-policy-server.js';
import { freePort, waitFor } from '../support/net.js';
import { startService, type Service } from '../support/processes.js';
import { POLICIES_DIR, post } from '../guardian/stack.js';
import { makeKeys } from './support.js';

// Decision logs: agents that decide in process ship every decision to the
// Guardian's audit trail, batched and off the hot path, retried while the
// Guardian is away, and never lose a denial: not when the buffer is full, not
// across a Guardian restart.

let policy: RunningPolicyServer;
const closers: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  policy = await startPolicyServer({ dir: POLICIES_DIR, port: 0, host: '127.0.0.1', watch: false });
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await policy?.close();
});

async function auditOf(url: string) {
  return AuditListResponseSchema.parse(await (await fetch(`${url}/v1/audit?limit=1000`)).json()).events;
}

const event = (decision: 'allowed' | 'denied', message: string) =>
  auditEvent({ source: 'planner', target: 'executor', decision, reason: decision === 'denied' ? 'no' : 'yes', checked_by: 'client', message });

describe('POST /v1/logs', () => {
  it('appends the events to the audit trail once each, and refuses a bad batch with a clear error', async () => {
    const guardian = await startGuardian({ port: 0, opaUrl: policy.url });
    closers.push(() => guardian.close());
    const one = { ...event('denied', 'x'), decision_id: 'd-1' };
    for (let i = 0; i < 2; i++) {
      const res = await post(`${guardian.url}/v1/logs`, { events: [one] });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ accepted: 1 });
    }
    expect((await auditOf(guardian.url)).filter((e) => e.decision_id === 'd-1')).toHaveLength(1);
    const bad = await post(`${guardian.url}/v1/logs`, { events: [{ ...one, decision_id: undefined }] });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('decision_id') });
  });
});

describe('POST /v1/logs on a Guardian with a key', () => {
  it('takes only batches signed with the Guardian key: 401 otherwise, nothing recorded', async () => {
    const { keys } = makeKeys(['guardian', 'mallory']);
    const guardian = await startGuardian({ port: 0, opaUrl: policy.url, bundleKey: keys.get('guardian')! });
    closers.push(() => guardian.close());
    const body = JSON.stringify({ events: [{ ...event('allowed', 'forged'), decision_id: 'forged-1' }] });
    const send = (headers: Record<string, string>) =>
      fetch(`${guardian.url}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    for (const headers of [{}, signBundle({ body, key: keys.get('mallory')!, purpose: 'decision-logs' }), signBundle({ body, key: keys.get('guardian')! })]) {
      const refused = await send(headers);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: 'signature_invalid', message: expect.stringContaining('decision logs refused') });
    }
    expect((await auditOf(guardian.url)).filter((e) => e.decision_id === 'forged-1')).toEqual([]);
    const taken = await send(signBundle({ body, key: keys.get('guardian')!, purpose: 'decision-logs' }));
    expect(taken.status).toBe(200);
    expect((await auditOf(guardian.url)).filter((e) => e.decision_id === 'forged-1')).toHaveLength(1);
  });
});

describe('DecisionLogShipper', () => {
  it('when its buffer is full drops allows first, never a denial, and delivers the denials once the Guardian is up', async () => {
    const port = await freePort();
    const shipper = new DecisionLogShipper({ guardianUrl: `http://127.0.0.1:${port}`, maxBuffered: 5, flushMs: 10, maxBackoffMs: 100 });
    closers.push(() => shipper.close());
    const denials = Array.from({ length: 7 }, (_, i) => `deny-${i}`);
    for (let i = 0; i < 10; i++) {
      shipper.record(event('allowed', `allow-${i}`));
      if (i < denials.length) shipper.record(event('denied', denials[i]!));
    }
    const stats = shipper.stats;
    expect(stats).toMatchObject({ recorded: 17, dropped: 10, delivered: 0, pending: 7 });
    expect(stats.keptOverBound).toBeGreaterThan(0);
    // A delivery has failed (nobody listens on the port) before the Guardian comes up.
    await waitFor(async () => shipper.stats.failures > 0, 'a failed delivery');
    expect(shipper.stats.pending).toBe(7);
    const guardian = await startGuardian({ port, opaUrl: policy.url });
    closers.push(() => guardian.close());
    await shipper.flush();
    expect(shipper.stats).toMatchObject({ delivered: 7, pending: 0 });
    const arrived = new Set((await auditOf(guardian.url)).filter((e) => e.decision === 'denied').map((e) => e.message_sha256));
    expect(denials.filter((d) => !arrived.has(messageDigest(d)))).toEqual([]);
  });
});

describe('DecisionLogShipper batching', () => {
  it('holds allows for their flush period but sends a denial, and the allows waiting with it, soon after it is made', async () => {
    const guardian = await startGuardian({ port: 0, opaUrl: policy.url });
    closers.push(() => guardian.close());
    // Allows may wait ten minutes: anything delivered within the test's wait was sent for the denial.
    const shipper = new DecisionLogShipper({ guardianUrl: guardian.url, flushMs: 600_000 });
    closers.push(() => shipper.close());
    shipper.record(event('allowed', 'batched-allow'));
    shipper.record(event('denied', 'prompt-denial'));
    await waitFor(async () => shipper.stats.delivered === 2, 'the denial and the allow before it to be delivered');
    const arrived = (await auditOf(guardian.url)).map((e) => e.message_sha256);
    expect(arrived).toEqual(expect.arrayContaining([messageDigest('batched-allow'), messageDigest('prompt-denial')]));
    shipper.record(event('allowed', 'waiting-allow'));
    expect(shipper.stats).toMatchObject({ delivered: 2, pending: 1 });
  });
});

describe('decision logs across a Guardian restart (a real child process)', () => {
  let guardian: Service;
  let port: number;
  const { json: keysJson, ring } = makeKeys(['guardian', 'planner']);
  const start = () =>
    startService({ name: 'guardian', args: ['serve', 'guardian', '--addr', `127.0.0.1:${port}`, '--opa-url', policy.url], port, env: { A2A_KEYS: keysJson } });

  it('loses no denial: every one made before, during and after the outage reaches the Guardian', async () => {
    port = await freePort();
    guardian = await start();
    closers.push(() => guardian.stop());
    const url = guardian.url;
    const validator = createValidator(loadA2AConfig({ env: { GUARDIAN_URL: url, A2A_VALIDATION_MODE: 'strict', A2A_DECISIONS: 'local' } }), { keys: ring });
    const shipper = decisionLogShipperFor(url);
    const denied: string[] = [];
    let n = 0;
    const decide = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const message = `call ${n++}`;
        const deny = n % 3 === 0;
        const [allowed] = await validator.validateA2AAccess(
          { name: deny ? 'untrusted' : 'planner', description: '', url: '' },
          { name: deny ? 'database' : 'executor', description: '', url: '' },
          message,
        );
        expect(allowed).toBe(!deny);
        if (deny) denied.push(message);
      }
    };

    await decide(60);
    await shipper.flush();
    const before = await auditOf(url);
    guardian.process.kill('SIGKILL');
    await guardian.stop();
    // The Guardian is gone: decisions go on from the bundle held, their logs wait.
    await decide(60);
    expect(shipper.stats.pending).toBeGreaterThan(0);
    guardian = await start();
    closers.push(() => guardian.stop());
    await decide(60);
    await shipper.flush();
    const after = await auditOf(url);

    const arrived = new Set([...before, ...after].filter((e) => e.decision === 'denied' && e.checked_by === 'client').map((e) => e.message_sha256));
    const lost = denied.filter((message) => !arrived.has(messageDigest(message)));
    expect(denied.length).toBe(60);
    expect(lost).toEqual([]);
    expect(shipper.stats).toMatchObject({ recorded: 180, delivered: 180, pending: 0, dropped: 0 });
  });
});
