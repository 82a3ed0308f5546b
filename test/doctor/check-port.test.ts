import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPort, portInUse } from '../../runtime/doctor/check-port.js';
import { knownPort } from '../../runtime/doctor/known-ports.js';
import { startPolicyServer, type RunningPolicyServer } from '../../runtime/policy/server/start-policy-server.js';
import { closedPort, holdPort } from './support.js';

const POLICIES = fileURLToPath(new URL('../../policies', import.meta.url));
const OPA = knownPort(8181)!;
let policy: RunningPolicyServer;

beforeAll(async () => {
  policy = await startPolicyServer({ dir: POLICIES, port: 0, watch: false });
});
afterAll(async () => policy?.close());

describe('checkPort', () => {
  it('is ok on a free port', async () => {
    const port = await closedPort();
    expect(await portInUse(port)).toBe(false);
    expect(await checkPort({ known: OPA, port })).toEqual({ name: `port ${port}`, status: 'ok', detail: 'free (for the policy engine)', required: false });
  });

  it('warns that `up` will fail when another program holds the port, naming it when ss can', async () => {
    const holder = await holdPort();
    try {
      const check = await checkPort({ known: OPA, port: holder.port });
      expect(check).toMatchObject({ status: 'warn', required: false });
      expect(check.detail).toContain('not the policy engine: `up` will fail to start the policy engine here');
      // This test process holds it; ss names it when the machine has ss.
      expect(check.detail).toMatch(/in use by (node \(pid \d+\)|another program)/);
      expect(check.fix).toContain('framework-cli policy serve');
    } finally {
      await holder.close();
    }
  });

  it('is ok when our own service already runs there', async () => {
    const check = await checkPort({ known: OPA, port: policy.port });
    expect(check).toMatchObject({ status: 'ok', detail: 'the policy engine is already running here (ours)' });
  });

  it('does not take our policy engine for the Guardian', async () => {
    const check = await checkPort({ known: knownPort(11438)!, port: policy.port });
    expect(check.status).toBe('warn');
  });
});
