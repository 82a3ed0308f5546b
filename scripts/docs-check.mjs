#!/usr/bin/env node
// Keeps the documentation true to the code. `npm run docs:check` (run by `npm test`, after the build):
//  1. extracts every fenced ```ts block of README.md and docs/**/*.md into its own module and
//     type-checks them all against framework_core's public entry points (`framework_core`,
//     `framework_core/a2a`, …, resolved through package.json's "exports" as a user's project
//     resolves them), so an example that names a removed export or a wrong option fails;
//  2. runs the blocks whose fence says ```ts runnable (each must exit 0 within a minute);
//  3. checks that docs/cli.md is what `npm run docs:cli` writes from the oclif manifest;
//  4. checks that every relative link of those files names a file that exists and, with a
//     #fragment, a heading of that file.
// Errors point at the Markdown file and line. The examples are compiled in .cache/docs-check,
// inside this package, so `import … from 'framework_core'` is the package's self-reference.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { renderCliReference } from './cli-reference.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const workDir = join(root, '.cache', 'docs-check');
const RUN_TIMEOUT_MS = 60_000;
const TS_LANGS = new Set(['ts', 'typescript']);

/** README.md and every Markdown file under docs/, as paths relative to the root. */
function documentationFiles() {
  const files = ['README.md'];
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  if (existsSync(join(root, 'docs'))) walk('docs');
  return files;
}

/** The fenced blocks of one Markdown text: language, flags, first code line (1-based) and code. */
function fencedBlocks(text) {
  const lines = text.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)(.*)$/.exec(lines[i]);
    if (open === null) continue;
    const [, indent, fence, lang, rest] = open;
    const body = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j];
      if (line.trim().startsWith(fence[0].repeat(fence.length)) && line.trim().replaceAll(fence[0], '') === '') break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    blocks.push({ lang: lang.toLowerCase(), flags: rest.trim().split(/\s+/).filter(Boolean), line: i + 2, code: body.join('\n') });
    i = j;
  }
  return blocks;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function headingSlug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function headingSlugs(text) {
  const seen = new Map();
  const slugs = new Set();
  let inFence = false;
  for (const line of text.split('\n')) {
    if (/^\s*(`{3,}|~{3,})/.test(line)) inFence = !inFence;
    const heading = inFence ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (heading === null) continue;
    const base = headingSlug(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
}

function checkLinks(file, text, problems) {
  const withoutCode = text.replace(/(`{3,})[\s\S]*?\1/g, (block) => block.replace(/[^\n]/g, ' '));
  const link = /\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
  for (const match of withoutCode.matchAll(link)) {
    const target = match[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, mailto:, …
    const lineNo = withoutCode.slice(0, match.index).split('\n').length;
    const [pathPart, fragment] = target.split('#', 2);
    const targetFile = pathPart === '' ? file : join(dirname(file), decodeURIComponent(pathPart));
    const absolute = resolve(root, targetFile);
    if (!absolute.startsWith(root)) {
      problems.push(`${file}:${lineNo}: link ${target} leaves the repository`);
      continue;
    }
    if (!existsSync(absolute)) {
      problems.push(`${file}:${lineNo}: link ${target}: no such file ${relative(root, absolute)}`);
      continue;
    }
    if (fragment !== undefined && fragment !== '' && absolute.endsWith('.md')) {
      if (!headingSlugs(readFileSync(absolute, 'utf8')).has(fragment)) {
        problems.push(`${file}:${lineNo}: link ${target}: ${relative(root, absolute)} has no heading #${fragment}`);
      }
    }
  }
}

const COMPILER_OPTIONS = {
  target: ts.ScriptTarget.ES2023,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: true,
  types: ['node'],
  rootDir: join(workDir, 'src'),
  outDir: join(workDir, 'out'),
  sourceMap: false,
};

function main() {
  if (!existsSync(join(root, 'dist', 'runtime', 'index.d.ts'))) {
    console.error('docs:check: dist/ is missing; run `npm run build` first (npm test does).');
    process.exit(1);
  }
  const problems = [];
  const examples = [];
  for (const file of documentationFiles()) {
    const text = readFileSync(join(root, file), 'utf8');
    checkLinks(file, text, problems);
    for (const block of fencedBlocks(text)) {
      if (!TS_LANGS.has(block.lang)) continue;
      const name = `${file.replace(/[^\w]+/g, '_')}_L${block.line}`;
      examples.push({ file, line: block.line, name, runnable: block.flags.includes('runnable'), code: block.code });
    }
  }

  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(join(workDir, 'src'), { recursive: true });
  const byPath = new Map();
  for (const example of examples) {
    const path = join(workDir, 'src', `${example.name}.ts`);
    // `export {}` makes every block a module, so top-level await and its own names are allowed.
    writeFileSync(path, `${example.code}\nexport {};\n`);
    byPath.set(path, example);
  }

  const program = ts.createProgram([...byPath.keys()], COMPILER_OPTIONS);
  const emitted = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  for (const diagnostic of diagnostics) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const example = diagnostic.file === undefined ? undefined : byPath.get(resolve(diagnostic.file.fileName));
    if (example === undefined || diagnostic.start === undefined) {
      problems.push(`TS${diagnostic.code}: ${message}`);
      continue;
    }
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    problems.push(`${example.file}:${example.line + line}: TS${diagnostic.code}: ${message}`);
  }

  let ran = 0;
  if (diagnostics.length === 0) {
    for (const example of examples.filter((e) => e.runnable)) {
      const result = spawnSync(process.execPath, [join(workDir, 'out', `${example.name}.js`)], {
        cwd: workDir,
        encoding: 'utf8',
        timeout: RUN_TIMEOUT_MS,
        env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'error' },
      });
      ran++;
      if (result.status !== 0) {
        const why = result.error?.message ?? `exit ${result.status ?? result.signal}`;
        problems.push(`${example.file}:${example.line}: runnable example failed (${why})\n${(result.stderr ?? '').trim().slice(-2000)}`);
      }
    }
  }

  const cliReference = join(root, 'docs', 'cli.md');
  const expected = renderCliReference(root);
  if (!existsSync(cliReference) || readFileSync(cliReference, 'utf8') !== expected) {
    problems.push('docs/cli.md is not what the oclif manifest says: run `npm run docs:cli` and commit it');
  }

  if (problems.length > 0) {
    console.error(problems.join('\n'));
    console.error(`docs:check: ${problems.length} problem(s)`);
    process.exit(1);
  }
  console.log(`docs:check: ${examples.length} TypeScript examples type-check, ${ran} ran, links and docs/cli.md current`);
}

main();
