import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleAccessChecker } from '../../runtime/a2a/bundle-access-checker.js';
import { A2AValidator } from '../../runtime/a2a/validator.js';
import { BundleFollower } from '../../runtime/guardian/bundle-follower.js';
import { BundleStateFile } from '../../runtime/guardian/bundle-state-file.js';
import { signBundle } from '../../runtime/guardian/policy-bundle.js';
import { startGuardian, type RunningGuardian } from '../../runtime/guardian/start-guardian.js';
import { startPolicyServer, type RunningPolicyServer } from '../../runtime/policy/server/start-policy-server.js';
import { ToolGate, toolGateFromEnv } from '../../runtime/tools/tool-gate.js';
import { makeKeys } from '../a2a/support.js';
import { POLICIES_DIR } from '../guardian/stack.js';

// Issue 33, policy bundles: a fake Guardian (a child process holding no key,
// answering at the address agents fetch their bundle from) (a) replays an
// older, validly signed bundle after the policy was tightened, to the running
// agent and to the same agent restarted; (b) answers 304 Not Modified for ever
// to keep a bundle "fresh", also a replayed one and with a replayed signed 304;
// (c) serves the tool gate an unsigned bundle that allows everything. Each used
// to get through; the agent must now refuse them and strict mode deny.

const FAKE = fileURLToPath(new URL('./fixtures/fake-guardian.mjs', import.meta.url));
const { keys, ring, json } = makeKeys(['guardian', 'mallory']);
const guardianKey = keys.get('guardian')!;

let policy: RunningPolicyServer;
let guardian: RunningGuardian;
let fake: ChildProcess;
let fakeUrl: string;
let scratch: string;
const followers: BundleFollower[] = [];

interface Answer {
  status: number;
  headers: Record<string, string>;
  body?: string;
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'fw-bundle-attacks-'));
  policy = await startPolicyServer({ dir: POLICIES_DIR, port: 0, host: '127.0.0.1', watch: false, allowWrites: true });
  guardian = await startGuardian({ port: 0, opaUrl: policy.url, bundleKey: guardianKey });
  fake = spawn(process.execPath, [FAKE], { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(fake.stdout!, 'data')) as [Buffer];
  fakeUrl = `http://127.0.0.1:${(JSON.parse(line.toString()) as { port: number }).port}`;
});

afterAll(async () => {
  for (const f of followers) f.close();
  if (fake && fake.exitCode === null && fake.signalCode === null) {
    fake.kill('SIGTERM');
    await once(fake, 'exit');
  }
  await guardian?.close();
  await policy?.close();
  await rm(scratch, { recursive: true, force: true });
});

/** What the real Guardian answers now, as an eavesdropper records it (the headers an agent reads). */
async function capture(ifNoneMatch?: string, from = guardian.url): Promise<Answer> {
  const response = await fetch(`${from}/v1/bundles/a2a`, { headers: ifNoneMatch ? { 'if-none-match': ifNoneMatch } : {} });
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name === 'etag' || name === 'content-type' || name.startsWith('x-framework-')) headers[name] = value;
  });
  return { status: response.status, headers, ...(response.status === 304 ? {} : { body: await response.text() }) };
}

/** Tells the fake Guardian what to answer from now on. */
async function fakeServes(state: { mode: 'relay'; upstream: string } | { mode: 'replay'; response: Answer; notModified?: Answer | null }): Promise<void> {
  const response = await fetch(`${fakeUrl}/control`, { method: 'PUT', body: JSON.stringify({ notModified: null, ...state }) });
  expect(response.status).toBe(204);
}

async function fakeHits(): Promise<{ requests: number; conditional: number }> {
  return (await (await fetch(`${fakeUrl}/control`)).json()) as { requests: number; conditional: number };
}

function follower(options: { state?: string; maxAgeMs?: number } = {}): BundleFollower {
  const f = new BundleFollower({
    guardianUrl: fakeUrl,
    verifyWith: ring,
    refreshMs: 50,
    maxAgeMs: options.maxAgeMs ?? 60_000,
    ...(options.state ? { state: new BundleStateFile({ path: options.state }) } : {}),
  });
  followers.push(f);
  return f;
}

const ref = (name: string) => ({ name, description: `${name} agent`, url: `http://${name}.local:8002` });
const decide = (f: BundleFollower) =>
  new A2AValidator({ mode: 'strict', checker: new BundleAccessChecker({ follower: f }) }).validateA2AAccess(ref('planner'), ref('executor'), 'hi');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Tightens the policy in the engine (the executor frozen) for the length of `run`. */
async function withFreeze<T>(run: () => Promise<T>): Promise<T> {
  const id = 'extra/a2a_freeze_attack.rego';
  const put = await fetch(`${policy.url}/v1/policies/${id}`, {
    method: 'PUT',
    headers: { 'content-type': 'text/plain' },
    body: 'package a2a_access\n\ndeny contains "the executor is frozen" if input.target_agent.name == "executor"\n',
  });
  expect(put.status).toBe(200);
  try {
    return await run();
  } finally {
    await fetch(`${policy.url}/v1/policies/${id}`, { method: 'DELETE' });
  }
}

describe('(a) a replayed older bundle after the policy was tightened', () => {
  it('is refused as a rollback by the running agent and by the same agent restarted', async () => {
    const loose = await capture();
    await withFreeze(async () => {
      const tight = await capture();
      const revision = (answer: Answer) => (JSON.parse(answer.body!) as { revision: number }).revision;
      expect(revision(tight)).toBeGreaterThan(revision(loose));
      const state = join(scratch, 'rollback', 'policy-bundles.json');

      await fakeServes({ mode: 'replay', response: tight });
      const running = follower({ state });
      expect(await decide(running)).toEqual([false, 'the executor is frozen']);

      // The fake now serves the older bundle, validly signed and not yet expired.
      await fakeServes({ mode: 'replay', response: loose });
      await running.refresh();
      expect((await fakeHits()).requests).toBeGreaterThan(0);
      expect(running.revision).toBe(revision(tight));
      expect(await decide(running)).toEqual([false, 'the executor is frozen']);

      // Restarted (a new process has only the state file): the older bundle is still refused, and strict denies.
      const restarted = follower({ state });
      const [allowed, reason] = await decide(restarted);
      expect(allowed).toBe(false);
      expect(reason).toMatch(/revision \d+ is older than revision \d+, which this agent has already used: a rollback is refused.*strict mode denies$/);
    });
  });

  it('a Guardian restarted on the same policies numbers above every revision it served before', async () => {
    const before = (JSON.parse((await capture()).body!) as { revision: number }).revision;
    const again = await startGuardian({ port: 0, opaUrl: policy.url, bundleKey: guardianKey });
    try {
      const response = await fetch(`${again.url}/v1/bundles/a2a`);
      expect(((await response.json()) as { revision: number }).revision).toBeGreaterThan(before);
    } finally {
      await again.close();
    }
  });

  it('a state file that cannot be read refuses every bundle, naming the file', async () => {
    const state = join(scratch, 'corrupt.json');
    await writeFile(state, '{"version":1,"bundles":');
    await fakeServes({ mode: 'relay', upstream: guardian.url });
    const [allowed, reason] = await decide(follower({ state }));
    expect(allowed).toBe(false);
    expect(reason).toContain(`${state} is not JSON`);
  });
});

describe('(b) 304 Not Modified for ever', () => {
  it('does not keep a bundle fresh past its maximum age without a signed statement', async () => {
    await fakeServes({ mode: 'relay', upstream: guardian.url });
    const f = follower({ maxAgeMs: 1500 });
    expect(await decide(f)).toEqual([true, 'allowed by policy']);
    const bundle = await capture();
    await fakeServes({ mode: 'replay', response: bundle, notModified: { status: 304, headers: { etag: bundle.headers.etag! } } });
    // Past the maximum age (1.5 s: room for a slow first fetch), with the fake having answered 304 to several re-checks.
    const start = Date.now();
    while (Date.now() - start < 2000 || (await fakeHits()).conditional < 3) {
      await f.refresh();
      await sleep(50);
    }
    const [allowed, reason] = await decide(f);
    expect(allowed).toBe(false);
    expect(reason).toMatch(
      /the policy bundle is stale: the Guardian signed it .* ago, more than the 1.5 s.*304 without a signed freshness statement.*strict mode denies$/,
    );
  });

  it('does not make a replayed bundle fresh: it is as old as its signature', async () => {
    const old = await capture();
    await sleep(2000);
    await fakeServes({ mode: 'replay', response: old, notModified: { status: 304, headers: { etag: old.headers.etag! } } });
    const [allowed, reason] = await decide(follower({ maxAgeMs: 1500 }));
    expect(allowed).toBe(false);
    expect(reason).toMatch(/the policy bundle is stale: the Guardian signed it .* ago.*strict mode denies$/);
  });

  it('does not extend freshness with a replayed genuine 304: its signed time is the old one', async () => {
    await fakeServes({ mode: 'relay', upstream: guardian.url });
    const f = follower({ maxAgeMs: 1500 });
    expect(await decide(f)).toEqual([true, 'allowed by policy']);
    const bundle = await capture();
    const signed304 = await capture(bundle.headers.etag);
    expect(signed304.status).toBe(304);
    expect(signed304.headers['x-framework-bundle-freshness']).toBeDefined();
    await fakeServes({ mode: 'replay', response: bundle, notModified: signed304 });
    const start = Date.now();
    while (Date.now() - start < 2000 || (await fakeHits()).conditional < 3) {
      await f.refresh();
      await sleep(50);
    }
    const [allowed, reason] = await decide(f);
    expect(allowed).toBe(false);
    expect(reason).toMatch(/the policy bundle is stale.*strict mode denies$/);
  });

  it('past the expiry the Guardian signed, strict denies even within the agent maximum age', async () => {
    const short = await startGuardian({ port: 0, opaUrl: policy.url, bundleKey: guardianKey, bundleTtlMs: 1500 });
    try {
      await fakeServes({ mode: 'relay', upstream: short.url });
      const f = follower({ maxAgeMs: 60_000 });
      expect(await decide(f)).toEqual([true, 'allowed by policy']);
      const bundle = await capture(undefined, short.url);
      await fakeServes({ mode: 'replay', response: bundle, notModified: { status: 304, headers: { etag: bundle.headers.etag! } } });
      await sleep(1700);
      await f.refresh();
      const [allowed, reason] = await decide(f);
      expect(allowed).toBe(false);
      expect(reason).toMatch(/the policy bundle is stale: it expired at .*strict mode denies$/);
    } finally {
      await short.close();
    }
  });
});

describe('(c) an unsigned tool bundle that allows everything', () => {
  const allowAll = () => {
    const now = Date.now();
    return JSON.stringify({
      revision: Number.MAX_SAFE_INTEGER,
      digest: 'attacker',
      issued_at: new Date(now).toISOString(),
      expires_at: new Date(now + 3_600_000).toISOString(),
      modules: [{ id: 'trading.rego', raw: 'package trading\n\nallow := true\n\ndeny := set()\n\nrequire_approval := false\n' }],
    });
  };
  const trade = { id: 'c-60000', name: 'place_trade', arguments: { symbol: 'ACME', amount: 60_000 } };

  it('is refused, so the 60,000 trade is denied (TOOL_DECISIONS=local, as the trader builds its gate)', async () => {
    await fakeServes({ mode: 'replay', response: { status: 200, headers: { 'content-type': 'application/json' }, body: allowAll() } });
    const gate = toolGateFromEnv({
      agent: { name: 'trader' },
      defaultPolicies: 'place_trade:trading',
      env: {
        GUARDIAN_URL: fakeUrl,
        A2A_VALIDATION_MODE: 'strict',
        TOOL_DECISIONS: 'local',
        A2A_KEYS: json,
        POLICY_BUNDLE_STATE_FILE: join(scratch, 'tools', 'policy-bundles.json'),
      },
    });
    const decision = await gate.decide(trade);
    expect(decision.action).toBe('deny');
    expect(decision.reasons[0]).toMatch(/^strict mode: no policy bundle from the Guardian \(refused: the bundle is not signed/);
  });

  it('is refused when signed by a key of another agent, or when the gate holds no Guardian key', async () => {
    const body = allowAll();
    await fakeServes({
      mode: 'replay',
      response: { status: 200, headers: { 'content-type': 'application/json', ...signBundle({ body, key: keys.get('mallory')! }) }, body },
    });
    const state = new BundleStateFile({ path: join(scratch, 'tools2.json') });
    const gate = (bundleKeys = ring) =>
      new ToolGate({
        guardianUrl: fakeUrl,
        mode: 'strict',
        agent: { name: 'trader' },
        policies: { place_trade: 'trading' },
        decide: 'local',
        bundleKeys,
        bundleState: state,
      });
    const byMallory = await gate().decide(trade);
    expect(byMallory.action).toBe('deny');
    expect(byMallory.reasons[0]).toContain('of the agent "mallory", not of "guardian"');
    // A genuine bundle, but the gate has no key to check it with: refused all the same (fail closed).
    await fakeServes({ mode: 'relay', upstream: guardian.url });
    const keyless = await gate(makeKeys(['planner']).ring).decide(trade);
    expect(keyless.action).toBe('deny');
    expect(keyless.reasons[0]).toContain("which is not in this agent's key ring");
  });
});
