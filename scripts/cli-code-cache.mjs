#!/usr/bin/env node
// Writes the V8 code cache of the CLI's oclif bundle (dist/cli/oclif-core.cjs,
// see cli/cached-script.ts) for the Node that runs the build: a child process
// runs a few commands through the bundled entry, so that the functions a start
// compiles are in the cache, then writes it beside the bundle. Another Node
// (another V8 version) finds no cache of its name and compiles as before.
// Run by `npm run build` after the manifest (the commands are looked up through it).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/cli/main.js', import.meta.url).href;
const bin = new URL('../cli/bin/run.js', import.meta.url).href;
// What a start runs: help (the help classes), a command's load and parse, a command's run.
const RUNS = [['--help'], ['policy', 'eval', '--help'], ['version']];
const child = spawnSync(
  process.execPath,
  [
    '--input-type=module',
    '-e',
    `const { main, writeCodeCaches } = await import(${JSON.stringify(main)});
for (const args of ${JSON.stringify(RUNS)}) await main(args, ${JSON.stringify(bin)});
console.error(writeCodeCaches().join('\\n'));`,
  ],
  { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } },
);
if (child.status !== 0) {
  console.error(`cli-code-cache: the runs failed (exit ${child.status}):\n${child.stderr}`);
  process.exit(1);
}
console.log(`cli-code-cache: ${child.stderr.trim().split('\n').join(', ')}`);
