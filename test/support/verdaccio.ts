import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from './net.js';
import { REPO_ROOT } from './processes.js';

/** A Verdaccio registry started by a test. */
export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** An npm user config (registry and token) for every npm command of the test: `npm_config_userconfig`. */
  userconfig: string;
  /** What Verdaccio printed, for failure messages. */
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * Starts Verdaccio (the devDependency) on a free loopback port with its
 * storage and configuration under `dir`: framework_core is served only from
 * what is published to it, every other package is proxied from the public
 * npm registry (and cached in `dir`). Registers a user and writes an npm user
 * config with the registry and that user's token, so `npm publish` and
 * `npm install` go there.
 *
 * @example
 * const registry = await startVerdaccio({ dir });
 * execFileSync('npm', ['publish', tarball], { env: { ...process.env, npm_config_userconfig: registry.userconfig } });
 */
export async function startVerdaccio(options: { dir: string; timeoutMs?: number }): Promise<LocalRegistry> {
  const { dir } = options;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const config = join(dir, 'config.yaml');
  await writeFile(
    config,
    [
      `storage: ${JSON.stringify(join(dir, 'storage'))}`,
      'auth:',
      '  htpasswd:',
      `    file: ${JSON.stringify(join(dir, 'htpasswd'))}`,
      '    max_users: 10',
      'uplinks:',
      '  npmjs:',
      '    url: https://registry.npmjs.org/',
      // A busy two-core machine: slow answers are not failures.
      '    timeout: 120s',
      '    max_fails: 20',
      '    fail_timeout: 10s',
      'packages:',
      // Only what the test publishes: never a framework_core of the public registry.
      "  'framework_core':",
      '    access: $all',
      '    publish: $authenticated',
      "  '@*/*':",
      '    access: $all',
      '    publish: $authenticated',
      '    proxy: npmjs',
      "  '**':",
      '    access: $all',
      '    publish: $authenticated',
      '    proxy: npmjs',
      // Signed tokens: the legacy ones check the password (bcrypt) on every request of an install.
      'security:',
      '  api:',
      '    legacy: false',
      '    jwt:',
      '      sign:',
      '        expiresIn: 1d',
      'max_body_size: 200mb',
      'web:',
      '  enable: false',
      'log: { type: stdout, format: pretty, level: warn }',
      '',
    ].join('\n'),
  );
  const child = spawn(
    process.execPath,
    [join(REPO_ROOT, 'node_modules', 'verdaccio', 'bin', 'verdaccio'), '--config', config, '--listen', `127.0.0.1:${port}`],
    {
      cwd: dir,
      env: networkEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const stop = () => stopChild(child);
  try {
    await waitForPing({ url, child, timeoutMs: options.timeoutMs ?? 60_000, output: () => output });
    const token = await addUser({ url });
    const userconfig = join(dir, 'npmrc');
    await writeFile(userconfig, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`, { mode: 0o600 });
    return { url, userconfig, output: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** PATH, HOME and what reaching the public registry takes here: the CA bundle (the registry is reached through a TLS proxy) and proxy settings. */
export function networkEnv(): Record<string, string> {
  const keys = [
    'PATH',
    'HOME',
    'NODE_EXTRA_CA_CERTS',
    'SSL_CERT_FILE',
    'SSL_CERT_DIR',
    'HTTP_PROXY',
    'HTTPS_PROXY',
    'NO_PROXY',
    'http_proxy',
    'https_proxy',
    'no_proxy',
  ];
  return Object.fromEntries(keys.flatMap((key) => (process.env[key] === undefined ? [] : [[key, process.env[key]!]])));
}

async function waitForPing(options: { url: string; child: ChildProcess; timeoutMs: number; output: () => string }): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  while (Date.now() < deadline) {
    if (options.child.exitCode !== null) throw new Error(`verdaccio exited (${options.child.exitCode}): ${options.output()}`);
    const ok = await fetch(new URL('-/ping', options.url)).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`verdaccio did not answer ${options.url}-/ping within ${options.timeoutMs} ms: ${options.output()}`);
}

/** Registers a user the way `npm adduser` does (CouchDB's user document) and returns its token. */
async function addUser(options: { url: string }): Promise<string> {
  const name = 'fwtest';
  const response = await fetch(new URL(`-/user/org.couchdb.user:${name}`, options.url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password: `pw-${process.pid}-${Date.now()}` }),
  });
  const body = (await response.json()) as { token?: string };
  if (!response.ok || !body.token) throw new Error(`verdaccio refused the test user: ${response.status} ${JSON.stringify(body)}`);
  return body.token;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
