import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let library: typeof import('yaml') | undefined;

/**
 * The yaml package, loaded by its first use (about 230 modules; CommonJS under
 * Node, so synchronously): a policy engine whose policies have no metadata
 * blocks, YAML data files or YAML builtins never holds it.
 */
export function yamlLibrary(): typeof import('yaml') {
  return (library ??= require('yaml') as typeof import('yaml'));
}
