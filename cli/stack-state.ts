/**
 * What `status` reads of a project, in one module that the build bundles as
 * CommonJS (with zod, whose hundred modules were most of its start) and runs
 * through V8's code cache (scripts/bundle-cli.mjs, cli/cached-script.ts).
 * Import it after parsing; its errors are told apart by `isInstance`.
 */
export { readContainerState } from '../runtime/supervisor/container-state.js';
export { stackStatus } from '../runtime/supervisor/stack-status.js';
