/**
 * The default builtin registry: every family shipped with the engine.
 * To add a family, export a `BuiltinDefinition[]` from its file and list it here.
 */
import { aggregateBuiltins } from './aggregates.js';
import { arithmeticBuiltins } from './arithmetic.js';
import { arrayBuiltins } from './arrays.js';
import { castBuiltins } from './casts.js';
import { comparisonBuiltins } from './comparison.js';
import { internalBuiltins } from './internal.js';
import { jsonOpsBuiltins } from './json-ops.js';
import { objectBuiltins } from './objects.js';
import { BuiltinRegistry, type BuiltinDefinition } from './registry.js';
import { setBuiltins } from './sets.js';
import { sprintfBuiltins } from './sprintf.js';
import { stringBuiltins } from './strings.js';
import { timeBuiltins } from './time.js';
import { typeBuiltins } from './types.js';
import { walkBuiltins } from './walk.js';

export const builtinFamilies: ReadonlyArray<readonly BuiltinDefinition[]> = [
  comparisonBuiltins,
  arithmeticBuiltins,
  aggregateBuiltins,
  arrayBuiltins,
  setBuiltins,
  objectBuiltins,
  jsonOpsBuiltins,
  stringBuiltins,
  sprintfBuiltins,
  typeBuiltins,
  castBuiltins,
  walkBuiltins,
  timeBuiltins,
  internalBuiltins,
];

/** A fresh registry with every builtin family. */
export function createDefaultRegistry(): BuiltinRegistry {
  const r = new BuiltinRegistry();
  for (const family of builtinFamilies) r.registerAll(family);
  return r;
}

export const defaultRegistry: BuiltinRegistry = createDefaultRegistry();
