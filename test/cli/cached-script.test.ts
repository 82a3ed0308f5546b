import { spawnSync } from 'node:child_process';
import { hash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { codeCachePath, loadCachedScript } from '../../cli/cached-script.js';
import type * as PolicyEngine from '../../cli/policy-engine.js';
import { PolicyLoadError } from '../../runtime/policy/server/policy-problem.js';
import { REPO_ROOT } from '../support/processes.js';

/**
 * The CLI's CommonJS bundles run through V8's code cache (cli/cached-script.ts):
 * each case is a fresh Node process, since what V8 accepts is decided when a
 * script compiles. A cache is used only when it is the bundle owner's and no
 * one else may write it; a bad or missing one changes nothing but the speed.
 */
// The compiled loader (run `npm run build`): each case is a plain Node process.
const LOADER = join(REPO_ROOT, 'dist/cli/cached-script.js');
const dir = mkdtempSync(join(tmpdir(), 'cached-script-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A bundle as the build leaves it: CommonJS, its import() calls written __cachedScriptImport(...).
const BUNDLE = `const { cpus } = require('node:os');
exports.answer = () => 6 * 7;
exports.cpuCount = cpus().length > 0;
exports.dirname = __dirname;
exports.imported = (url) => __cachedScriptImport(url);
`;

interface Outcome {
  answer: number;
  dirname: string;
  imported: string;
  use: { accepted: boolean | undefined }[];
  written: string[];
}

/** Loads `file` in a fresh process, optionally writing its cache after. */
function load(options: { file: string; write?: boolean }): Outcome {
  const target = pathToFileURL(join(dir, 'target.mjs')).href;
  writeFileSync(join(dir, 'target.mjs'), 'export const value = "from an ES module";\n');
  const code = `import { loadCachedScript, codeCacheUse, writeCodeCaches } from ${JSON.stringify(pathToFileURL(LOADER).href)};
const bundle = loadCachedScript({ file: ${JSON.stringify(options.file)} });
const imported = (await bundle.imported(${JSON.stringify(target)})).value;
const written = ${options.write ? 'writeCodeCaches()' : '[]'};
console.log(JSON.stringify({ answer: bundle.answer(), dirname: bundle.dirname, imported, use: codeCacheUse(), written }));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: REPO_ROOT, encoding: 'utf8' });
  expect(child.status, child.stderr).toBe(0);
  expect(child.stderr).toBe('');
  return JSON.parse(child.stdout) as Outcome;
}

function bundleFile(name: string): string {
  const file = join(dir, `${name}.cjs`);
  writeFileSync(file, BUNDLE);
  return file;
}

describe('a bundle run through the code cache', () => {
  it('runs as CommonJS, imports through the loader, and takes the cache it wrote', () => {
    const file = bundleFile('plain');
    const first = load({ file, write: true });
    expect(first).toMatchObject({ answer: 42, dirname: dir, imported: 'from an ES module' });
    expect(first.use).toEqual([{ file: codeCachePath(file), accepted: undefined }]); // none to offer yet
    expect(first.written).toEqual([codeCachePath(file)]);
    expect(codeCachePath(file)).toContain(process.versions.v8);
    expect(load({ file }).use).toEqual([{ file: codeCachePath(file), accepted: true }]);
  });

  it('a cache of another bundle is not used, and one V8 rejects is compiled past, with the same answers', () => {
    const file = bundleFile('changed');
    load({ file, write: true });
    writeFileSync(file, `${BUNDLE}exports.more = 1;\n`);
    expect(load({ file })).toMatchObject({ answer: 42, use: [{ file: codeCachePath(file) }] });
    expect(load({ file }).use[0]!.accepted).toBeUndefined();
    // The right bundle's digest, then bytes that are no code cache: V8 says no.
    writeFileSync(codeCachePath(file), Buffer.concat([hash('sha256', readFileSync(file), 'buffer'), Buffer.from('not a code cache')]));
    expect(load({ file })).toMatchObject({ answer: 42, use: [{ accepted: false }] });
  });

  it('a cache made from other bytes of the same length is not offered to V8 (which would take it)', () => {
    const file = bundleFile('same-length');
    load({ file, write: true });
    writeFileSync(file, BUNDLE.replace('6 * 7', '6 * 8'));
    expect(load({ file })).toMatchObject({ answer: 48, use: [{ file: codeCachePath(file) }] });
    expect(load({ file }).use[0]!.accepted).toBeUndefined();
  });

  it('a cache others may write, or a link, is not read', () => {
    const file = bundleFile('writable');
    load({ file, write: true });
    chmodSync(codeCachePath(file), 0o666);
    expect(load({ file }).use).toEqual([{ file: codeCachePath(file), accepted: undefined }]);
    chmodSync(codeCachePath(file), 0o664);
    expect(load({ file }).use[0]!.accepted).toBeUndefined();
    chmodSync(codeCachePath(file), 0o644);
    expect(load({ file }).use[0]!.accepted).toBe(true);

    const linked = bundleFile('linked');
    load({ file: linked, write: true });
    const real = `${codeCachePath(linked)}.real`;
    writeFileSync(real, readFileSync(codeCachePath(linked)));
    rmSync(codeCachePath(linked));
    symlinkSync(real, codeCachePath(linked));
    expect(load({ file: linked }).use[0]!.accepted).toBeUndefined();
  });

  it('the build leaves a cache for this Node beside each CLI bundle, and command starts take them', () => {
    const bundles = ['oclif-core', 'policy-engine', 'stack-state', 'model-listing'].map((name) => join(REPO_ROOT, `dist/cli/cached/${name}.cjs`));
    for (const bundle of bundles) expect(existsSync(codeCachePath(bundle)), `${bundle}: run npm run build`).toBe(true);
    const main = pathToFileURL(join(REPO_ROOT, 'dist/cli/main.js')).href;
    const bin = pathToFileURL(join(REPO_ROOT, 'cli/bin/run.js')).href;
    const run = (args: string[]) => {
      const child = spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const m = await import(${JSON.stringify(main)}); await m.main(${JSON.stringify(args)}, ${JSON.stringify(bin)}); console.log(JSON.stringify(m.codeCacheUse()));`,
        ],
        { cwd: REPO_ROOT, encoding: 'utf8' },
      );
      expect(child.status, child.stderr).toBe(0);
      expect(child.stderr).toBe('');
      const lines = child.stdout.trim().split('\n');
      return { output: lines.slice(0, -1).join('\n'), use: JSON.parse(lines.at(-1)!) as unknown };
    };
    const version = run(['version']);
    expect(version.output).toMatch(/^framework_core\/\S+ /);
    expect(version.use).toEqual([{ file: codeCachePath(bundles[0]!), accepted: true }]);
    const evaluated = run(['policy', 'eval', '-d', join(REPO_ROOT, 'policies'), 'data.a2a_access.allow']);
    expect(JSON.parse(evaluated.output)).toEqual({ result: [{ expressions: [{ value: false, text: 'data.a2a_access.allow' }] }] });
    expect(evaluated.use).toEqual(bundles.slice(0, 2).map((bundle) => ({ file: codeCachePath(bundle), accepted: true })));
  });

  it("the bundled engine's load errors are told apart from others by PolicyLoadError.isInstance, not instanceof", async () => {
    const engine = loadCachedScript<typeof PolicyEngine>({ file: join(REPO_ROOT, 'dist/cli/cached/policy-engine.cjs') });
    const policies = mkdtempSync(join(dir, 'policies-'));
    writeFileSync(join(policies, 'bad.rego'), 'package bad\n\nallow if { x > 1 }\n');
    const error = await engine.loadPolicySet([policies]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(PolicyLoadError); // another copy of the class
    expect(PolicyLoadError.isInstance(error)).toBe(true);
    expect((error as PolicyLoadError).problems).toEqual([expect.objectContaining({ code: 'rego_unsafe_var_error', file: 'bad.rego', row: 3 })]);
    expect(PolicyLoadError.isInstance(new Error('other'))).toBe(false);
    expect(PolicyLoadError.isInstance({ problems: [] })).toBe(false);
  });
});
