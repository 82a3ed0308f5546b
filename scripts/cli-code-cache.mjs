#!/usr/bin/env node
// Writes the V8 code cache of the CLI's CommonJS bundles (dist/cli/cached/*.cjs,
// see cli/cached-script.ts) for the Node that runs the build: a child process
// runs a few commands through the bundled entry, so that the functions a start
// compiles are in the caches, then writes each beside its bundle. Another Node
// (another V8 version) finds no cache of its name and compiles as before.
// Run by `npm run build` after the manifest (the commands are looked up through it).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/cli/main.js', import.meta.url).href;
const bin = new URL('../cli/bin/run.js', import.meta.url).href;
const policies = fileURLToPath(new URL('../policies', import.meta.url));
const empty = mkdtempSync(join(tmpdir(), 'cli-code-cache-')); // a project with nothing running, and an empty model store
// What a start runs: help (the help classes), a command's load and parse, a command's run, the policy engine's load, compile and evaluation.
const RUNS = [
  ['--help'],
  ['policy', 'eval', '--help'],
  ['version'],
  ['policy', 'check', policies],
  ['policy', 'eval', '-d', policies, 'data.a2a_access.allow'],
  ['status', '--json', '--dir', empty],
  ['model', 'list', '--json'],
];
const child = spawnSync(
  process.execPath,
  [
    '--input-type=module',
    '-e',
    `const { main, writeCodeCaches } = await import(${JSON.stringify(main)});
for (const args of ${JSON.stringify(RUNS)}) await main(args, ${JSON.stringify(bin)});
console.error(writeCodeCaches().join('\\n'));`,
  ],
  {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FRAMEWORK_MODELS_DIR: join(empty, 'models') },
  },
);
rmSync(empty, { recursive: true, force: true });
if (child.status !== 0) {
  console.error(`cli-code-cache: the runs failed (exit ${child.status}):\n${child.stderr}`);
  process.exit(1);
}
console.log(`cli-code-cache: ${child.stderr.trim().split('\n').join(', ')}`);
