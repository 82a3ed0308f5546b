/**
 * What `model list` runs, in one module that the build bundles as CommonJS
 * (with zod, whose hundred modules were most of its start) and runs through
 * V8's code cache (scripts/bundle-cli.mjs, cli/cached-script.ts). Import it after parsing.
 */
export { ModelStore, resolveModelsDir } from '../runtime/model/model-store.js';
