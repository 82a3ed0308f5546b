import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompactSign } from 'jose';
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { plainError, runCli } from '../../support/cli.js';
import { freePort, waitFor } from '../../support/net.js';
import { CLI, REPO_ROOT } from '../../support/processes.js';
import { tarGz } from '../../support/tar.js';

// `framework-cli policy serve --bundle` as a child process, with OPA's signing flags.

const work = mkdtempSync(join(tmpdir(), 'fw-bundles-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const FILES: Record<string, string> = {
  '.manifest': '{"revision":"cli-1","roots":["authz"]}',
  'authz/policy.rego': 'package authz\n\ndefault allow := false\n\nallow if input.user == "alice"\n',
};
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const keyFile = join(work, 'public.pem');
writeFileSync(keyFile, rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString());

async function signedArchive(): Promise<string> {
  // The manifest is written in canonical form already, so its digest is that of its bytes.
  const files = Object.entries(FILES).map(([name, content]) => ({ name, hash: createHash('sha256').update(content).digest('hex'), algorithm: 'SHA-256' }));
  const token = await new CompactSign(new TextEncoder().encode(JSON.stringify({ files }))).setProtectedHeader({ alg: 'RS256' }).sign(rsa.privateKey);
  const path = join(work, 'signed.tar.gz');
  const entries = Object.entries({ ...FILES, '.signatures.json': JSON.stringify({ signatures: [token] }) }).map(([name, content]) => ({ name, content }));
  writeFileSync(path, tarGz(entries));
  return path;
}

describe('framework-cli policy serve --bundle', () => {
  it('serves a signed .tar.gz bundle verified with --verification-key, its revision in /v1/status, and stops on SIGTERM', async () => {
    const archive = await signedArchive();
    const port = await freePort();
    const consoleConfig = join(work, 'console.yaml');
    writeFileSync(consoleConfig, 'decision_logs: {console: true}\n');
    const { child, output, exited } = policyServe(REPO_ROOT, [
      '--bundle',
      archive,
      '--verification-key',
      keyFile,
      '--config-file',
      consoleConfig,
      '--addr',
      `127.0.0.1:${port}`,
      '--no-watch',
    ]);
    try {
      await waitFor(async () => {
        if (child.exitCode !== null) throw new Error(`policy serve exited early: ${output.stderr}`);
        return output.stdout.includes('\n');
      }, 'the listening line');
      const url = `http://127.0.0.1:${port}`;
      const decision = await fetch(`${url}/v1/data/authz/allow`, { method: 'POST', body: '{"input": {"user": "alice"}}' });
      expect(await decision.json()).toMatchObject({ result: true });
      const status = (await (await fetch(`${url}/v1/status`)).json()) as { result: { bundles: Record<string, { active_revision: string }> } };
      expect(status.result.bundles[archive]?.active_revision).toBe('cli-1');
      // decision_logs: {console: true} in --config-file prints each decision event on standard output.
      const { decision_id: id } = (await (await fetch(`${url}/v1/data/authz/allow`, { method: 'POST', body: '{"input": {"user": "bob"}}' })).json()) as {
        decision_id: string;
      };
      await waitFor(async () => output.stdout.includes(id), 'the decision event on standard output');
      const event = JSON.parse(output.stdout.split('\n').find((line) => line.includes(id)) as string) as Record<string, unknown>;
      expect(event).toMatchObject({ decision_id: id, path: 'authz/allow', input: { user: 'bob' }, result: false });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it("long-polls a bundle server, persists the bundle under <cwd>/.opa (OPA's default), and stops on SIGTERM while a poll is held", async () => {
    const body = readFileSync(await signedArchive());
    let held = 0;
    let prefer = '';
    const bundleServer = createServer((req, res) => {
      prefer = String(req.headers.prefer ?? '');
      // The bundle once; then requests carrying its ETag are held (600 s asked for), as a long-polling server holds them.
      if (req.headers['if-none-match'] === '"cli"') return void held++;
      res.writeHead(200, { 'Content-Type': 'application/vnd.openpolicyagent.bundles', ETag: '"cli"' }).end(body);
    });
    await new Promise<void>((resolve) => bundleServer.listen(0, '127.0.0.1', resolve));
    const cwd = join(work, 'cli-cwd');
    mkdirSync(cwd, { recursive: true });
    const config = join(work, 'long-poll.yaml');
    writeFileSync(
      config,
      [
        'services:',
        `  acme: {url: "http://127.0.0.1:${(bundleServer.address() as { port: number }).port}"}`,
        'bundles:',
        '  authz:',
        '    service: acme',
        '    persist: true',
        '    polling: {min_delay_seconds: 60, max_delay_seconds: 120, long_polling_timeout_seconds: 600}',
        '    signing: {keyid: ci}',
        'keys:',
        `  ci: {algorithm: RS256, key: ${JSON.stringify(rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString())}}`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    const { child, output, exited } = policyServe(cwd, ['--config-file', config, '--addr', `127.0.0.1:${port}`]);
    try {
      const persisted = join(cwd, '.opa', 'bundles', 'authz', 'bundle.tar.gz');
      await waitFor(async () => {
        if (child.exitCode !== null) throw new Error(`policy serve exited early: ${output.stderr}`);
        return held > 0 && existsSync(persisted);
      }, 'the bundle persisted and a long poll held');
      expect(readFileSync(persisted)).toEqual(body);
      expect(prefer).toBe('modes=snapshot,delta;wait=600');
      const decision = await fetch(`http://127.0.0.1:${port}/v1/data/authz/allow`, { method: 'POST', body: '{"input": {"user": "alice"}}' });
      expect(await decision.json()).toMatchObject({ result: true });
      // SIGTERM while the poll is held: the server exits (the bundle server still holds the request; it lets go after).
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
      bundleServer.closeAllConnections();
      bundleServer.close();
    }
  });

  it('serves the bundles a discovery bundle yields (--config-file with only a discovery section)', async () => {
    const policy = readFileSync(await signedArchive());
    const discovery = tarGz([
      { name: '.manifest', content: '{"revision":"disco-1","roots":["config"]}' },
      {
        name: 'config/config.rego',
        content:
          'package config\n\nrt := opa.runtime()\n\ndiscovery := {"bundles": {"authz": {"resource": sprintf("bundles/%s.tar.gz", [rt.config.labels.team]), "signing": {"keyid": "ci"}}}}\n',
      },
    ]);
    const bundleServer = createServer((req, res) => {
      const body = req.url === '/disco.tar.gz' ? discovery : req.url === '/bundles/payments.tar.gz' ? policy : undefined;
      if (body === undefined) return void res.writeHead(404).end();
      res.writeHead(200).end(body);
    });
    await new Promise<void>((resolve) => bundleServer.listen(0, '127.0.0.1', resolve));
    const config = join(work, 'discovery.yaml');
    writeFileSync(
      config,
      [
        'services:',
        `  acme: {url: "http://127.0.0.1:${(bundleServer.address() as { port: number }).port}"}`,
        'labels: {team: payments}',
        'discovery: {resource: disco.tar.gz, decision: config/discovery}',
        'keys:',
        `  ci: {algorithm: RS256, key: ${JSON.stringify(rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString())}}`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    const { child, output, exited } = policyServe(work, ['--config-file', config, '--addr', `127.0.0.1:${port}`]);
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitFor(async () => {
        if (child.exitCode !== null) throw new Error(`policy serve exited early: ${output.stderr}`);
        const answer = await fetch(`${url}/v1/data/authz/allow`, { method: 'POST', body: '{"input": {"user": "alice"}}' }).catch(() => undefined);
        return answer !== undefined && ((await answer.json()) as { result?: boolean }).result === true;
      }, 'the discovered bundle serving');
      const status = (await (await fetch(`${url}/v1/status`)).json()) as {
        result: { discovery: { active_revision: string }; bundles: Record<string, unknown> };
      };
      expect(status.result.discovery.active_revision).toBe('disco-1');
      expect(status.result.bundles.authz).toMatchObject({ active_revision: 'cli-1' });
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
      bundleServer.closeAllConnections();
      bundleServer.close();
    }
  });

  it('refuses to start on a signed bundle without a key, a configuration file it would not follow, and --scope without --verification-key', async () => {
    const archive = await signedArchive();
    const unkeyed = await runCli(['policy', 'serve', '--bundle', archive, '--addr', '127.0.0.1:0', '--no-watch']);
    expect(unkeyed.code).toBe(1);
    expect(plainError(unkeyed.stderr)).toContain('verification key not provided');
    const wrongAlg = await runCli(['policy', 'serve', '--bundle', archive, '--verification-key', keyFile, '--signing-alg', 'HS256', '--addr', '127.0.0.1:0']);
    expect(wrongAlg.code).toBe(1);
    expect(plainError(wrongAlg.stderr)).toContain('takes a shared secret, but the verification key is a PEM key');
    const config = join(work, 'opa.yaml');
    writeFileSync(config, 'services:\n  s: {url: "http://127.0.0.1:1"}\nbundles:\n  b: {service: s}\ndistributed_tracing: {type: grpc}\n');
    const unsupported = await runCli(['policy', 'serve', '--config-file', config, '--addr', '127.0.0.1:0']);
    expect(unsupported.code).toBe(1);
    expect(plainError(unsupported.stderr)).toContain(
      'the configuration\'s "distributed_tracing" section is not supported here (services, bundles, keys, labels, decision_logs, status, persistence_directory, discovery)',
    );
    const scope = await runCli(['policy', 'serve', '--bundle', archive, '--scope', 'x', '--addr', '127.0.0.1:0']);
    expect(scope.code).toBe(2);
    expect(plainError(scope.stderr)).toContain('--scope and --exclude-files-verify take effect only with --verification-key');
  });
});

/** `policy serve <args> --workers 0 --json` as a child process in `cwd`, its output gathered as it comes. */
function policyServe(cwd: string, args: readonly string[]) {
  const child = spawn(process.execPath, [CLI, 'policy', 'serve', ...args, '--workers', '0', '--json'], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => (output.stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output.stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, output, exited };
}
