import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidateResponseSchema } from '../../runtime/guardian/guardian-responses.js';
import { startPolicyServer, type RunningPolicyServer } from '../../runtime/policy/server/start-policy-server.js';
import { runCli } from '../support/cli.js';
import { freePort, waitFor } from '../support/net.js';
import { CLI, REPO_ROOT } from '../support/processes.js';
import { POLICIES_DIR, post, validationInput } from './stack.js';

let policy: RunningPolicyServer;
beforeAll(async () => {
  policy = await startPolicyServer({ dir: POLICIES_DIR, port: 0, host: '127.0.0.1', watch: false });
});
afterAll(async () => policy.close());

describe('framework-cli serve guardian', () => {
  it('serves the Guardian in front of the policy engine and stops on SIGTERM', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [CLI, 'serve', 'guardian', '--addr', `127.0.0.1:${port}`, '--opa-url', policy.url, '--json'], {
      cwd: REPO_ROOT,
      // The flags must win over OPA_URL and GUARDIAN_PORT.
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        LOG_LEVEL: 'warn',
        OPA_URL: 'http://127.0.0.1:1',
        GUARDIAN_PORT: '1',
        A2A_ENABLE_AUDIT_LOG: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: false,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
    try {
      await waitFor(async () => {
        if (child.exitCode !== null) throw new Error(`the Guardian exited early: ${stderr}`);
        return stdout.includes('\n');
      }, 'the listening line');
      const url = `http://127.0.0.1:${port}`;
      expect(JSON.parse(stdout.split('\n')[0]!)).toEqual({ event: 'listening', url });
      expect((await fetch(`${url}/health`)).status).toBe(200);
      const res = await post(`${url}/v1/a2a/validate`, validationInput('untrusted', 'database'));
      expect(res.status).toBe(200);
      expect(ValidateResponseSchema.parse(await res.json())).toEqual({ allowed: false, reason: 'untrusted agents may not call the database' });
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      clearTimeout(kill);
    }
    expect(JSON.parse(stdout.trim().split('\n').slice(1).join('\n'))).toEqual({ url: `http://127.0.0.1:${port}`, stopped: true });
    // A2A_ENABLE_AUDIT_LOG=true: each audit event is also a JSON line on stderr.
    const audit = stderr
      .split('\n')
      .filter((line) => line.includes('"audit":"a2a"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(audit).toEqual([expect.objectContaining({ source: 'untrusted', target: 'database', decision: 'denied', checked_by: 'guardian' })]);
  });

  it('explains a taken port, a bad address, a bad --opa-url and a bad environment', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as { port: number }).port;
    try {
      const busy = await runCli(['serve', 'guardian', '--addr', `127.0.0.1:${taken}`, '--opa-url', policy.url]);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain(`Port ${taken} on 127.0.0.1 is already in use`);
      expect(busy.stderr).toContain('--addr 127.0.0.1:<port>');
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
    const addr = await runCli(['serve', 'guardian', '--addr', 'nowhere']);
    expect(addr.code).toBe(2);
    expect(addr.stderr).toContain('is not host:port');
    const opa = await runCli(['serve', 'guardian', '--addr', '127.0.0.1:0', '--opa-url', 'opa:8181']);
    expect(opa.code).toBe(2);
    expect(opa.stderr).toContain('--opa-url "opa:8181" is not an http(s) URL');
    const env = await runCli(['serve', 'guardian', '--addr', '127.0.0.1:0'], { env: { GUARDIAN_PORT: 'high' } });
    expect(env.code).toBe(1);
    expect(env.stderr).toContain('GUARDIAN_PORT: must be a port number from 0 to 65535');
  });
});
