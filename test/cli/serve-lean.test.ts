import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.js';
import { RECORD_LOADS } from '../support/load-recorder.js';
import { freePort } from '../support/net.js';
import { REPO_ROOT } from '../support/processes.js';

/**
 * A service command starts without oclif's configuration, help and plugins
 * (cli/serve-lean.ts; idle memory, issue 40), and answers exactly as oclif
 * does: each case runs twice, once as typed and once with a FRAMEWORK_CLI_*
 * variable (any of oclif's scoped variables sends the start to oclif), and
 * standard output, standard error and the exit code must be the same.
 * The running services are stopped by SIGTERM once they print their
 * listening line. Run `npm run build` first.
 */
const OCLIF_START = { FRAMEWORK_CLI_UNUSED: '1' };
/** The bundle's definition of oclif's Config module: in a loaded file, oclif's configuration was loaded. */
const OCLIF_CONFIG = 'var require_config = __commonJS';
/** oclif's index as the CLI runs it: a CommonJS bundle compiled through V8's code cache (scripts/bundle-cli.mjs, cli/cached-script.ts). */
const OCLIF_INDEX = join(REPO_ROOT, 'dist', 'cli', 'cached', 'oclif-core.cjs');

const dir = mkdtempSync(join(tmpdir(), 'serve-lean-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let runs = 0;

/** The run's output, the port as `<port>`, and whether it loaded oclif's configuration. */
async function run(args: (port: number) => string[], options: { oclif: boolean; port: number }): Promise<CliResult & { oclifConfig: boolean }> {
  const file = join(dir, `loads-${runs++}.txt`);
  writeFileSync(file, '');
  const result = await runCli(args(options.port), {
    env: { NODE_OPTIONS: `--import=${RECORD_LOADS}`, FRAMEWORK_LOADS_FILE: file, NO_COLOR: '1', ...(options.oclif ? OCLIF_START : {}) },
    stopWhen: /\n/,
    timeoutMs: 60_000,
  });
  const loaded = [...new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean))]
    .map((url) => fileURLToPath(url))
    .filter((path) => path.startsWith(join(REPO_ROOT, 'dist', 'cli')));
  const mask = (text: string) => text.replaceAll(String(options.port), '<port>').replaceAll(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>');
  return {
    code: result.code,
    stdout: mask(result.stdout),
    stderr: mask(result.stderr),
    oclifConfig: loaded.some((path) => path === OCLIF_INDEX || readFileSync(path, 'utf8').includes(OCLIF_CONFIG)),
  };
}

/** Runs `args` lean and through oclif on the same free port, one after the other. */
async function both(args: (port: number) => string[]) {
  const port = await freePort();
  const lean = await run(args, { oclif: false, port });
  const oclif = await run(args, { oclif: true, port });
  return { lean, oclif };
}

const badPolicies = join(dir, 'bad-policies');
mkdirSync(badPolicies);
writeFileSync(join(badPolicies, 'broken.rego'), 'package broken\n\nallow if {\n');

describe('a service command starts lean and answers as oclif', () => {
  const SERVICES: [string, (port: number) => string[]][] = [
    ['serve guardian', (port) => ['serve', 'guardian', '--addr', `127.0.0.1:${port}`, '--opa-url', 'http://127.0.0.1:9', '--json']],
    ['policy serve', (port) => ['policy', 'serve', join(REPO_ROOT, 'policies'), '--addr', `127.0.0.1:${port}`, '--no-watch', '--workers', '0', '--json']],
    ['model serve', (port) => ['model', 'serve', '--addr', `127.0.0.1:${port}`]],
    ['serve agent', (port) => ['serve', 'agent', '--port', String(port), '--json']],
  ];
  it.each(SERVICES)('%s serves until SIGTERM without oclif configuration, with the same output', async (_name, args) => {
    const { lean, oclif } = await both(args);
    expect(lean.code).toBe(0);
    expect(lean.stdout.split('\n').length).toBeGreaterThanOrEqual(2);
    expect(lean.oclifConfig).toBe(false);
    // The recorder sees oclif's configuration when oclif runs the command.
    expect(oclif.oclifConfig).toBe(true);
    expect(lean.stdout).toBe(oclif.stdout);
    expect(lean.stderr).toBe(oclif.stderr);
    expect(lean.code).toBe(oclif.code);
  });

  const ERRORS: [string, (port: number) => string[]][] = [
    // The command's body refuses a flag (its error rendered by oclif, with the command's catch).
    ['a bad address', () => ['serve', 'guardian', '--addr', 'nowhere']],
    ['a bad address, --json', () => ['serve', 'guardian', '--addr', 'nowhere', '--json']],
    ['a bad URL, --json', () => ['serve', 'memory', '--kv-url', 'http://x', '--json']],
    // The parser refuses the arguments: oclif parses them again and answers.
    ['a port out of range', () => ['serve', 'agent', '--port', '70000']],
    ['an unknown flag, --json', () => ['model', 'serve', '--no-such-flag', '--json']],
    ['a missing policy folder', () => ['policy', 'serve', join(dir, 'none')]],
    ['two exclusive flags', () => ['serve', 'agent', '--a2a-only', '--minimal']],
    // Policies that do not compile: the problems on standard error, then the error (or one JSON document).
    ['policies that do not compile', () => ['policy', 'serve', badPolicies, '--addr', '127.0.0.1:0']],
    ['policies that do not compile, --json', () => ['policy', 'serve', badPolicies, '--addr', '127.0.0.1:0', '--json']],
    // Help stays oclif's.
    ['--help', () => ['serve', 'guardian', '--help']],
  ];
  it.each(ERRORS)('%s: the same answer', async (_name, args) => {
    const { lean, oclif } = await both(args);
    expect(lean.code).not.toBe(0);
    expect(lean.stdout + lean.stderr).not.toBe('');
    expect(lean).toEqual(oclif);
  });

  it('a port in use: the same error', async () => {
    const server: Server = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    try {
      const args = () => ['model', 'serve', '--addr', `127.0.0.1:${port}`];
      const lean = await run(args, { oclif: false, port });
      const oclif = await run(args, { oclif: true, port });
      expect(lean.code).toBe(1);
      expect(lean.stderr).toMatch(/in use/);
      expect(lean).toEqual(oclif);
    } finally {
      server.close();
    }
  });
});
