import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleAccessChecker } from '../../runtime/a2a/bundle-access-checker.js';
import { KeyRing } from '../../runtime/a2a/signing/key-ring.js';
import { A2AValidator, createValidator } from '../../runtime/a2a/validator.js';
import { loadA2AConfig } from '../../runtime/core/config.js';
import { BundleFollower } from '../../runtime/guardian/bundle-follower.js';
import { AuditListResponseSchema } from '../../runtime/guardian/guardian-responses.js';
import { BUNDLE_SIGNATURE_HEADERS, bundleSignatureProblem, signBundle } from '../../runtime/guardian/policy-bundle.js';
import { readFreshness } from '../../runtime/guardian/bundle-freshness.js';
import { startGuardian, type RunningGuardian } from '../../runtime/guardian/start-guardian.js';
import { startPolicyServer, type RunningPolicyServer } from '../../runtime/policy/server/start-policy-server.js';
import { freePort, waitFor } from '../support/net.js';
import { POLICIES_DIR } from '../guardian/stack.js';
import { makeKeys } from './support.js';

// A2A decisions in process (A2A_DECISIONS=local): the agents evaluate the
// Guardian's signed bundle and must answer exactly as the Guardian does,
// refuse a bundle that is unsigned or signed by anyone but the Guardian, follow
// a policy change, and fail closed (strict) when the bundle is missing or stale.

const agents = ['guardian', 'planner', 'untrusted', 'mallory'];
const { keys, ring } = makeKeys(agents);
const guardianKey = keys.get('guardian')!;

let policy: RunningPolicyServer;
let guardian: RunningGuardian;
const closers: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  policy = await startPolicyServer({ dir: POLICIES_DIR, port: 0, host: '127.0.0.1', watch: false, allowWrites: true });
  guardian = await startGuardian({ port: 0, opaUrl: policy.url, bundleKey: guardianKey });
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await guardian?.close();
  await policy?.close();
});

function follower(options: Partial<ConstructorParameters<typeof BundleFollower>[0]> = {}): BundleFollower {
  const f = new BundleFollower({ guardianUrl: guardian.url, verifyWith: ring, refreshMs: 100, ...options });
  closers.push(() => f.close());
  return f;
}

function localValidator(mode: 'strict' | 'permissive', f: BundleFollower): A2AValidator {
  return new A2AValidator({ mode, checker: new BundleAccessChecker({ follower: f }) });
}

const ref = (name: string) => ({ name, description: `${name} agent`, url: `http://${name}.local:8002` });

describe('GET /v1/bundles/a2a', () => {
  it('serves the policies signed with the Guardian key, with an ETag and 304', async () => {
    const response = await fetch(`${guardian.url}/v1/bundles/a2a`);
    expect(response.status).toBe(200);
    const body = await response.text();
    const bundle = JSON.parse(body) as { revision: number; digest: string; issued_at: string; expires_at: string; modules: { id: string }[] };
    expect(bundle.modules.some((m) => m.id.endsWith('a2a_access.rego'))).toBe(true);
    expect(response.headers.get('etag')).toBe(`"${bundle.digest}"`);
    expect(Date.parse(bundle.expires_at) - Date.parse(bundle.issued_at)).toBe(60_000);
    expect(response.headers.get(BUNDLE_SIGNATURE_HEADERS.keyId)).toBe('guardian-1');
    expect(bundleSignatureProblem({ body, keys: ring, header: (name) => response.headers.get(name) })).toBeUndefined();
    // One changed byte, and the signature no longer matches.
    expect(bundleSignatureProblem({ body: body.replace('allow', 'allov'), keys: ring, header: (name) => response.headers.get(name) })).toBe(
      'the bundle signature does not match its body',
    );
    const again = await fetch(`${guardian.url}/v1/bundles/a2a`, { headers: { 'if-none-match': `"${bundle.digest}"` } });
    expect(again.status).toBe(304);
    // The 304 says, signed, that the same revision is still current: the only thing that keeps a bundle fresh.
    const statement = readFreshness({ keys: ring, header: (name) => again.headers.get(name) });
    expect(statement).toMatchObject({ revision: bundle.revision, digest: bundle.digest });
  });

  it('refuses a bundle signed by a key of another agent, or by a key it does not know', () => {
    const body = '{"revision":1,"modules":[]}';
    const byMallory = signBundle({ body, key: keys.get('mallory')! });
    expect(bundleSignatureProblem({ body, keys: ring, header: (name) => byMallory[name] })).toMatch(/of the agent "mallory", not of "guardian"/);
    const stranger = makeKeys(['guardian']).keys.get('guardian')!;
    const byStranger = signBundle({ body, key: { id: 'guardian-9', agent: 'guardian', secret: stranger.secret } });
    expect(bundleSignatureProblem({ body, keys: ring, header: (name) => byStranger[name] })).toMatch(/"guardian-9", which is not in this agent's key ring/);
  });
});

describe('a validator deciding from the bundle', () => {
  it('gives the same answers and reasons as the Guardian, allow and deny', async () => {
    const remote = createValidator(loadA2AConfig({ env: { GUARDIAN_URL: guardian.url, A2A_VALIDATION_MODE: 'strict' } }));
    const local = localValidator('strict', follower());
    const pairs = [
      ['planner', 'executor'],
      ['planner', 'orchestrator'],
      ['orchestrator', 'database'],
      ['untrusted', 'database'],
      ['untrusted', 'semantic-layer'],
      ['executor', 'planner'],
      ['planner', 'database'],
    ];
    const answers: [boolean, string][] = [];
    for (const [source, target] of pairs) {
      const [a, b] = [await remote.validateA2AAccess(ref(source!), ref(target!), 'hello'), await local.validateA2AAccess(ref(source!), ref(target!), 'hello')];
      expect(b, `${source} → ${target}`).toEqual(a);
      answers.push(b);
    }
    expect(answers).toContainEqual([true, 'allowed by policy']);
    expect(answers).toContainEqual([false, 'untrusted agents may not call the database']);
    expect(answers).toContainEqual([false, 'no policy rule allows this agent pair']);
  });

  it('says, as the Guardian does, when the engine holds no a2a_access package at all', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fw-bundle-'));
    await copyFile(join(POLICIES_DIR, 'trading.rego'), join(dir, 'trading.rego'));
    const bare = await startPolicyServer({ dir, port: 0, host: '127.0.0.1', watch: false });
    const own = await startGuardian({ port: 0, opaUrl: bare.url, bundleKey: guardianKey });
    closers.push(async () => {
      await own.close();
      await bare.close();
      await rm(dir, { recursive: true, force: true });
    });
    const remote = createValidator(loadA2AConfig({ env: { GUARDIAN_URL: own.url, A2A_VALIDATION_MODE: 'strict' } }));
    const local = localValidator('strict', follower({ guardianUrl: own.url }));
    const expected: [boolean, string] = [false, 'the policy engine has no "a2a_access" policy loaded'];
    expect(await remote.validateA2AAccess(ref('orchestrator'), ref('planner'), 'hi')).toEqual(expected);
    expect(await local.validateA2AAccess(ref('orchestrator'), ref('planner'), 'hi')).toEqual(expected);
  });

  it('through createValidator with A2A_DECISIONS=local, and ships the decisions to the Guardian audit trail', async () => {
    const validator = createValidator(loadA2AConfig({ env: { GUARDIAN_URL: guardian.url, A2A_VALIDATION_MODE: 'strict', A2A_DECISIONS: 'local' } }), {
      keys: ring,
    });
    expect(validator.checker?.kind).toBe('policy bundle');
    const marker = `m-${Date.now()}`;
    expect(await validator.validateA2AAccess(ref('untrusted'), ref('database'), marker)).toEqual([false, 'untrusted agents may not call the database']);
    expect(await validator.validateA2AAccess(ref('planner'), ref('executor'), marker)).toEqual([true, 'allowed by policy']);
    await waitFor(async () => {
      const { events } = AuditListResponseSchema.parse(await (await fetch(`${guardian.url}/v1/audit?limit=1000`)).json());
      return events.filter((e) => e.checked_by === 'client' && e.decision_id && ['untrusted', 'planner'].includes(e.source)).length >= 2;
    }, 'the decisions in the Guardian audit trail');
  });

  it('a Guardian without the bundle key serves no bundle, and strict denies, naming why', async () => {
    const unsigned = await startGuardian({ port: 0, opaUrl: policy.url });
    closers.push(() => unsigned.close());
    const response = await fetch(`${unsigned.url}/v1/bundles/a2a`);
    expect(response.status).toBe(503);
    expect(((await response.json()) as { code: string }).code).toBe('policy_unavailable');
    const [allowed, reason] = await localValidator('strict', follower({ guardianUrl: unsigned.url })).validateA2AAccess(ref('planner'), ref('executor'), 'hi');
    expect(allowed).toBe(false);
    expect(reason).toMatch(/serves no unsigned bundle.*strict mode denies$/);
  });

  it('refuses a bundle signed with a key this agent does not hold for the Guardian', async () => {
    const f = follower({ verifyWith: new KeyRing([keys.get('planner')!]) });
    const [allowed, reason] = await localValidator('strict', f).validateA2AAccess(ref('planner'), ref('executor'), 'hi');
    expect(allowed).toBe(false);
    expect(reason).toContain('"guardian-1", which is not in this agent\'s key ring');
  });

  it('follows a policy change in the engine within its refresh', async () => {
    const f = follower({ refreshMs: 200, poll: true });
    const validator = localValidator('strict', f);
    expect(await validator.validateA2AAccess(ref('planner'), ref('executor'), 'hi')).toEqual([true, 'allowed by policy']);
    const changed = f.nextRevision();
    const id = 'extra/a2a_freeze.rego';
    const put = await fetch(`${policy.url}/v1/policies/${id}`, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: 'package a2a_access\n\ndeny contains "the executor is frozen" if input.target_agent.name == "executor"\n',
    });
    expect(put.status).toBe(200);
    try {
      await changed; // the poll (not a call) brought the new revision
      expect(await validator.validateA2AAccess(ref('planner'), ref('executor'), 'hi')).toEqual([false, 'the executor is frozen']);
    } finally {
      await fetch(`${policy.url}/v1/policies/${id}`, { method: 'DELETE' });
    }
    await f.nextRevision();
    expect(await validator.validateA2AAccess(ref('planner'), ref('executor'), 'hi')).toEqual([true, 'allowed by policy']);
  });
});

describe('a missing or stale bundle', () => {
  it('with no Guardian ever reached: strict denies, permissive allows', async () => {
    const gone = `http://127.0.0.1:${await freePort()}`;
    const strict = await localValidator('strict', follower({ guardianUrl: gone })).validateA2AAccess(ref('planner'), ref('executor'), 'hi');
    expect(strict[0]).toBe(false);
    expect(strict[1]).toMatch(/no policy bundle from the Guardian .*strict mode denies$/);
    const permissive = await localValidator('permissive', follower({ guardianUrl: gone })).validateA2AAccess(ref('untrusted'), ref('database'), 'hi');
    expect(permissive[0]).toBe(true);
    expect(permissive[1]).toMatch(/permissive mode allows$/);
  });

  it('after the Guardian stops, once the bundle is older than its max age: strict denies, permissive allows', async () => {
    const own = await startGuardian({ port: 0, opaUrl: policy.url, bundleKey: guardianKey });
    let stopped = false;
    closers.push(() => (stopped ? undefined : own.close()));
    const f = follower({ guardianUrl: own.url, refreshMs: 50, maxAgeMs: 1500 });
    const strict = localValidator('strict', f);
    const permissive = localValidator('permissive', f);
    expect(await strict.validateA2AAccess(ref('planner'), ref('executor'), 'hi')).toEqual([true, 'allowed by policy']);
    await own.close();
    stopped = true;
    // Decisions go on from the last good bundle until it is too old, then the mode decides.
    await waitFor(async () => (await strict.validateA2AAccess(ref('planner'), ref('executor'), 'hi'))[0] === false, 'the bundle to go stale', 10_000);
    const [allowed, reason] = await strict.validateA2AAccess(ref('planner'), ref('executor'), 'hi');
    expect(allowed).toBe(false);
    expect(reason).toMatch(/the policy bundle is stale.*strict mode denies$/);
    const [open, why] = await permissive.validateA2AAccess(ref('untrusted'), ref('database'), 'hi');
    expect(open).toBe(true);
    expect(why).toMatch(/the policy bundle is stale.*permissive mode allows$/);
  });
});
