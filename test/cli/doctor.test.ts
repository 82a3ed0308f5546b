import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DoctorReport } from '../../runtime/doctor/run-doctor.js';
import { startModelServer, type RunningModelServer } from '../../runtime/model/start-model-server.js';
import { startPolicyServer, type RunningPolicyServer } from '../../runtime/policy/server/start-policy-server.js';
import { defaultModelStore } from '../model/support/default-model.js';
import { runCliInProcess } from '../support/cli.js';
import { freePort } from '../support/net.js';

const POLICIES = fileURLToPath(new URL('../../policies', import.meta.url));
let models: RunningModelServer;
let policy: RunningPolicyServer;
let env: Record<string, string>;

beforeAll(async () => {
  const { store } = await defaultModelStore();
  models = await startModelServer({ store, host: '127.0.0.1', port: 0 });
  policy = await startPolicyServer({ dir: POLICIES, port: 0, watch: false });
  env = { KV_URL: 'redis://127.0.0.1:6379', OLLAMA_HOST: models.url, OPA_URL: policy.url };
}, 120_000);

afterAll(async () => {
  await Promise.all([models?.close(), policy?.close()]);
});

describe('framework-cli doctor', () => {
  it('prints one JSON report and exits 0 when nothing required is missing', async () => {
    const { code, stdout, stderr } = await runCliInProcess(['doctor', '--json'], { env });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as DoctorReport;
    expect(report.ok).toBe(true);
    const byName = new Map(report.checks.map((c) => [c.name, c]));
    expect(byName.get('redis')?.status).toBe('ok');
    expect(byName.get('policy engine')).toMatchObject({ status: 'ok', detail: `healthy at ${policy.url}/health` });
    expect(byName.get('model runtime')?.detail).toContain('smollm2');
    expect(report.checks.filter((c) => c.name.startsWith('port ')).map((c) => c.name)).toEqual(
      [8002, 8100, 8101, 8103, 11438, 8181, 10100, 8000, 11434].map((p) => `port ${p}`),
    );
  });

  it('exits 1 with one JSON document when a required check is missing', async () => {
    const closed = await freePort();
    const { code, stdout } = await runCliInProcess(['doctor', '--json'], { env: { ...env, OPA_URL: `http://127.0.0.1:${closed}` } });
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as DoctorReport;
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.name === 'policy engine')).toMatchObject({
      status: 'missing',
      required: true,
      fix: expect.stringContaining('policy serve'),
    });
  });

  it('prints a table with marks and the fix on the next line', async () => {
    const closed = await freePort();
    const { code, stdout } = await runCliInProcess(['doctor'], { env: { ...env, KV_URL: `redis://127.0.0.1:${closed}` } });
    expect(code).toBe(1);
    const lines = stdout.split('\n');
    expect(lines.find((l) => l.startsWith('✔ node'))).toBeDefined();
    const redis = lines.findIndex((l) => l.startsWith('✖ redis'));
    expect(redis).toBeGreaterThanOrEqual(0);
    expect(lines[redis]).toContain(`redis://127.0.0.1:${closed}`);
    expect(lines[redis + 1]?.trim()).toMatch(/^fix: start redis-server/);
    expect(stdout).toMatch(/Not ready: \d+ ok, \d+ warning\(s\), 1 missing/);
  });
});
