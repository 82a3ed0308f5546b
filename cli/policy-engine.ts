/**
 * What `policy eval` and `policy check` run, in one module that the build
 * bundles as CommonJS with the policy engine and runs through V8's code cache
 * (scripts/bundle-cli.mjs, cli/cached-script.ts): one cached file to compile
 * instead of the engine's hundred modules. Import it after parsing; its errors
 * are told apart by `isInstance`, since the process may hold a second copy.
 */
export { evalQuery, evalQueryExplained } from '../runtime/policy/tools/eval-query.js';
export { loadPolicySet, readInputFile } from '../runtime/policy/tools/load-policies.js';
