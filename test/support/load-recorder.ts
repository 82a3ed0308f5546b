/**
 * A module to preload (`node --import=${RECORD_LOADS}`, or NODE_OPTIONS) that
 * appends the URL of every file the process loads to FRAMEWORK_LOADS_FILE:
 * an ES module loader hook every file URL it resolves, Node's CommonJS
 * loader every file it compiles, and `vm.Script` every file it compiles by
 * name (the CLI's code-cached bundles, cli/cached-script.ts).
 */
const LOADS_HOOK = `data:text/javascript,${encodeURIComponent(
  `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.startsWith('file:')) appendFileSync(process.env.FRAMEWORK_LOADS_FILE, resolved.url + '\\n');
  return resolved;
}`,
)}`;
export const RECORD_LOADS = `data:text/javascript,${encodeURIComponent(
  `import Module, { register, syncBuiltinESMExports } from 'node:module';
import { appendFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';
register(${JSON.stringify(LOADS_HOOK)});
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(code, options) {
    if (typeof options?.filename === 'string' && options.filename.startsWith('/')) appendFileSync(process.env.FRAMEWORK_LOADS_FILE, pathToFileURL(options.filename).href + '\\n');
    super(code, options);
  }
};
syncBuiltinESMExports();
for (const extension of ['.js', '.cjs', '.json']) {
  const compile = Module._extensions[extension];
  Module._extensions[extension] = function (module, filename) {
    appendFileSync(process.env.FRAMEWORK_LOADS_FILE, pathToFileURL(filename).href + '\\n');
    return compile.call(this, module, filename);
  };
}`,
)}`;
