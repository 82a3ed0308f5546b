#!/usr/bin/env node
// Bundles the CLI's start into a few files, in place in dist/cli: the entry
// (dist/cli/main.js), every command and hook, with the CLI's own modules they
// import, code-split into shared chunks; and apart, as CommonJS files under
// dist/cli/cached/ that cli/cached-script.ts runs through V8's code cache
// (written by scripts/cli-code-cache.mjs at the end of the build), @oclif/core
// and what the real runs that need no service load: the policy engine of
// `policy eval` and `policy check` (cli/policy-engine.ts), `status`'s readers
// (cli/stack-state.ts) and `model list`'s store (cli/model-listing.ts), both
// with zod. oclif's index alone is about 220 CommonJS files, the engine about
// 100 ES modules, zod about 100: resolving, reading and compiling them one by
// one was most of a command's cold start. Everything else outside dist/cli (the
// runtime, other packages) stays an import, so it loads from its own file as
// before, and only when a command imports it.
// Run by `npm run build` after tsc (it rewrites tsc's output, so it runs once per tsc), before the manifest.
import { build } from 'esbuild';
import ts from 'typescript';
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cliDir = join(root, 'dist/cli');
const distDir = join(root, 'dist');
const chunkDir = join(cliDir, 'chunks');
const require = createRequire(import.meta.url);
// What runs through the code cache: each entry bundled (with the packages it imports) into dist/cli/cached/<name>.cjs, and every
// import of it in the CLI's bundle made an import of dist/cli/cached/<name>.js, an ES module that runs the CommonJS file and exports its names.
const cachedDir = join(cliDir, 'cached');
const CACHED = [
  { name: 'oclif-core', entry: '@oclif/core' },
  { name: 'policy-engine', entry: join(cliDir, 'policy-engine.js') },
  { name: 'stack-state', entry: join(cliDir, 'stack-state.js') },
  { name: 'model-listing', entry: join(cliDir, 'model-listing.js') },
];
const shimOf = (entry) => {
  const cached = CACHED.find((c) => c.entry === entry);
  return cached && join(cachedDir, `${cached.name}.js`);
};
// What oclif requires only to run TypeScript sources in development (never here): left to Node.
const NEVER_BUNDLED = new Set(['typescript', 'ts-node', 'tsx', 'pnpapi']);
// Our modules outside dist/cli are imported by a placeholder path, made relative to each output file once written:
// a module of dist/cli inlined into a chunk or another command no longer sits where its relative imports pointed.
const DIST = '__framework_dist__/';

function jsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return jsFiles(path);
    return entry.name.endsWith('.js') ? [path] : [];
  });
}

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** @oclif/core's subpaths the lean service start imports: bundled from the package, not run from the index's cached bundle. */
const OCLIF_PARSER_PARTS = new Set(['@oclif/core/args', '@oclif/core/flags', '@oclif/core/parser']);

const inNodeModules = (path) => path.split(sep).includes('node_modules');

/** What stays an import: our modules outside dist/cli, and packages; imports of a cached bundle's entry go to the module that runs it. */
const externals = {
  name: 'externals',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point' || args.path.startsWith('node:')) return undefined;
      if (packageName(args.path) === '@oclif/core') {
        // The index runs from its cached bundle; the parser's own parts (flags, args, parser), which a service's lean
        // start (cli/serve-lean.ts) parses with and nothing else, are bundled into the chunks as they are.
        if (OCLIF_PARSER_PARTS.has(args.path) || args.importer.includes(`${sep}node_modules${sep}@oclif${sep}core${sep}`)) return undefined;
        if (args.path !== '@oclif/core')
          throw new Error(`bundle-cli: ${args.importer} imports ${args.path}; only @oclif/core's index and parser parts are bundled`);
        return { path: shimOf(args.path) };
      }
      if (NEVER_BUNDLED.has(packageName(args.path))) return { path: args.path, external: true };
      if (inNodeModules(args.importer)) return undefined; // inside a bundled package (or plugin command): bundle what it needs
      if (args.path.startsWith('.')) {
        const target = resolve(args.resolveDir, args.path);
        if (shimOf(target)) return { path: shimOf(target) };
        if (target.startsWith(cliDir + sep)) return undefined;
        if (!target.startsWith(distDir + sep)) throw new Error(`bundle-cli: ${args.importer} imports ${args.path}, outside dist`);
        return { path: DIST + relative(distDir, target).split(sep).join('/'), external: true };
      }
      return { path: args.path, external: true }; // a package
    });
  },
};

/**
 * `source` with each `import(x)` written `__cachedScriptImport(x)`: a script
 * run by vm.Script can import only through a callback (Node 20 allows one only
 * with --experimental-vm-modules, or its main loader with an experimental
 * warning on standard error), so cli/cached-script.ts passes the bundle a
 * function that imports from an ES module. The calls are found by TypeScript's
 * parser, so a string that reads `import(` stays as it is. That function
 * resolves a relative specifier from its own file, so one is refused here.
 */
function withImportsThroughLoader(source, name) {
  const file = ts.createSourceFile(`${name}.cjs`, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const starts = [];
  const visit = (node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [specifier, ...rest] = node.arguments;
      if (rest.length > 0 || (ts.isStringLiteralLike(specifier) && specifier.text.startsWith('.')))
        throw new Error(`bundle-cli: ${name}.cjs has an import() the loader cannot make: ${node.getText(file)}`);
      starts.push(node.expression.getStart(file));
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  let out = source;
  for (const start of starts.sort((a, b) => b - a)) out = `${out.slice(0, start)}__cachedScriptImport${out.slice(start + 'import'.length)}`;
  return out;
}

const BANNER = "import { createRequire as __frameworkCreateRequire } from 'node:module'; const require = __frameworkCreateRequire(import.meta.url);";
if (readFileSync(join(cliDir, 'main.js'), 'utf8').startsWith(BANNER)) {
  console.error('bundle-cli: dist/cli is bundled already; run tsc first (npm run build)');
  process.exit(1);
}
rmSync(chunkDir, { recursive: true, force: true });
// The cached bundles, and the ES modules that run them.
rmSync(cachedDir, { recursive: true, force: true });
/**
 * Two steps of oclif's start replaced in its bundle by ours (cli/oclif-start.ts,
 * which says why; test/cli/oclif-start.test.ts checks they answer as oclif's):
 * each is the exact text of @oclif/core's file, and the build fails when a new
 * release of oclif no longer has it.
 */
const OCLIF_START = join(cliDir, 'oclif-start.js');
const OCLIF_REPLACEMENTS = [
  {
    file: join('@oclif', 'core', 'lib', 'config', 'plugin.js'),
    from: '.sort((a, b) => a.id.localeCompare(b.id));',
    to: '.sort((a, b) => __frameworkOclifStart.compareCommandIds(a.id, b.id));',
  },
  {
    file: join('@oclif', 'core', 'lib', 'help', 'util.js'),
    from: 'return ejs_1.default.render(t, context);',
    to: 'return __frameworkOclifStart.renderHelpText(t, (text) => ejs_1.default.render(text, context));',
  },
];
const oclifReplacements = {
  name: 'oclif-replacements',
  setup(b) {
    b.onLoad({ filter: /[\\/]@oclif[\\/]core[\\/]lib[\\/](config[\\/]plugin|help[\\/]util)\.js$/ }, (args) => {
      const replacement = OCLIF_REPLACEMENTS.find((r) => args.path.endsWith(sep + r.file));
      if (!replacement) return undefined;
      const source = readFileSync(args.path, 'utf8');
      if (source.split(replacement.from).length !== 2)
        throw new Error(`bundle-cli: ${args.path} no longer has \`${replacement.from}\` once; see cli/oclif-start.ts`);
      replacement.done = true;
      const contents = `const __frameworkOclifStart = require(${JSON.stringify(OCLIF_START)});\n${source.replace(replacement.from, replacement.to)}`;
      return { contents, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};
for (const { name, entry } of CACHED) {
  const file = join(cachedDir, `${name}.cjs`);
  const bundled = await build({
    ...(name === 'oclif-core' ? { plugins: [oclifReplacements] } : {}),
    entryPoints: [entry],
    outfile: file,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: [...NEVER_BUNDLED],
    // A module's own URL (createRequire(import.meta.url) finds packages from it) is the bundle's.
    define: { 'import.meta.url': '__cachedScriptUrl' },
    banner: { js: 'var __cachedScriptUrl = require("node:url").pathToFileURL(__filename).href;' },
    logOverride: { 'empty-import-meta': 'error' },
    legalComments: 'none',
    logLevel: 'warning',
    write: false,
  });
  if (name === 'oclif-core')
    for (const { file, done } of OCLIF_REPLACEMENTS) if (!done) throw new Error(`bundle-cli: oclif's ${file} was not bundled; see cli/oclif-start.ts`);
  const text = withImportsThroughLoader(bundled.outputFiles[0].text, name);
  // A file found beside its module (new URL('./x', import.meta.url)) would be looked for beside the bundle.
  if (/new URL\([^)]*__cachedScriptUrl/.test(text)) throw new Error(`bundle-cli: ${name} finds a file relative to one of its modules; it cannot be bundled`);
  mkdirSync(cachedDir, { recursive: true });
  writeFileSync(file, text);
  const names = Object.keys(require(file)).filter((key) => key !== '__esModule' && /^[A-Za-z_$][\w$]*$/.test(key));
  writeFileSync(
    join(cachedDir, `${name}.js`),
    [
      "import { fileURLToPath } from 'node:url';",
      "import { loadCachedScript } from '../cached-script.js';",
      // A placeholder path, as for imports: this module lands in a chunk, made relative to it once written.
      `const bundle = loadCachedScript({ file: fileURLToPath(new URL('${DIST}cli/cached/${name}.cjs', import.meta.url)) });`,
      `export const { ${names.join(', ')} } = bundle;`,
      '',
    ].join('\n'),
  );
}
const outName = (file) => relative(cliDir, file).replace(/\.js$/, '');
const entryPoints = Object.fromEntries([
  ...[join(cliDir, 'main.js'), ...jsFiles(join(cliDir, 'commands')), ...jsFiles(join(cliDir, 'hooks'))].map((file) => [outName(file), file]),
]);

const result = await build({
  entryPoints,
  outdir: cliDir,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  plugins: [externals],
  // oclif is CommonJS: its require() of Node's modules needs a real require in an ES module.
  banner: { js: BANNER },
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  write: false,
});
for (const file of result.outputFiles) {
  let text = file.text;
  if (file.path.endsWith('.js')) {
    text = text.replaceAll(/(["'])__framework_dist__\/([^"']+)\1/g, (_, quote, path) => {
      const target = relative(dirname(file.path), join(distDir, path)).split(sep).join('/');
      return `${quote}${target.startsWith('.') ? target : `./${target}`}${quote}`;
    });
    if (text.includes(DIST)) throw new Error(`bundle-cli: ${file.path} keeps a placeholder import`);
  }
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, text);
}
if (process.env.BUNDLE_CLI_META) writeFileSync(process.env.BUNDLE_CLI_META, JSON.stringify(result.metafile)); // what went into which file
const inputs = Object.keys(result.metafile.inputs).length;
console.log(
  `bundle-cli: ${Object.keys(entryPoints).length} entries from ${inputs} files into ${Object.keys(result.metafile.outputs).length} files under ${relative(root, cliDir)}`,
);
