/**
 * How an agent fetches its policy bundle from the Guardian, against peers
 * that misbehave: a redirect is not followed (as no policy call follows one;
 * until 6 Dec the follower's `fetch` followed it anywhere), and an endless
 * answer is refused as it arrives instead of being held in memory (until then
 * it was read whole for as long as the timeout allowed). A real Guardian over
 * a real policy server serves the genuine bundle; real HTTP servers on free
 * ports stand for the misbehaving peers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleFollower } from '../../runtime/guardian/bundle-follower.js';
import { POLICY_BUNDLE_PATH } from '../../runtime/guardian/guardian-responses.js';
import { startGuardian, type RunningGuardian } from '../../runtime/guardian/start-guardian.js';
import { startPolicyServer, type RunningPolicyServer } from '../../runtime/policy/server/start-policy-server.js';
import { makeKeys } from '../a2a/support.js';
import { endlessAnswer, httpPeers } from '../support/net.js';
import { POLICIES_DIR } from './stack.js';

const { keys, ring } = makeKeys(['guardian']);
const peers = httpPeers();
let policy: RunningPolicyServer;
let guardian: RunningGuardian;

beforeAll(async () => {
  policy = await startPolicyServer({ dir: POLICIES_DIR, port: 0, host: '127.0.0.1', watch: false });
  guardian = await startGuardian({ port: 0, opaUrl: policy.url, bundleKey: keys.get('guardian')! });
});

afterAll(async () => {
  await peers.closeAll();
  await guardian?.close();
  await policy?.close();
});

const follow = (guardianUrl: string, timeoutMs = 5000) => new BundleFollower({ guardianUrl, verifyWith: ring, timeoutMs });

describe('the bundle follower asking a misbehaving Guardian', () => {
  it('loads the signed bundle from the Guardian itself', async () => {
    expect(await follow(guardian.url).ready()).toMatchObject({ revision: expect.any(Number) });
  });

  it('does not follow a redirect, even to the genuine Guardian', async () => {
    const redirecting = await peers.serve((request, response) => response.writeHead(307, { location: `${guardian.url}${request.url ?? ''}` }).end());
    const state = await follow(redirecting).ready();
    expect(state).toEqual({
      unavailable: `no policy bundle from the Guardian (refused: HTTP 307, a redirect to "${guardian.url}${POLICY_BUNDLE_PATH}", which is not followed)`,
    });
  });

  it('refuses an endless answer as it arrives, and the peer sees the connection dropped', async () => {
    let dropped!: () => void;
    const peerSawDrop = new Promise<void>((resolve) => (dropped = resolve));
    const endless = await peers.serve(endlessAnswer({ onClose: () => dropped() }));
    const state = await follow(endless, 60_000).ready();
    expect(state).toEqual({ unavailable: `no policy bundle from the Guardian (the answer is over ${64 * 1024 * 1024} bytes)` });
    await peerSawDrop;
  });
});
