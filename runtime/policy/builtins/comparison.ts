/** Comparison builtins (`== != < <= > >=`), ordering values of any type as OPA does. */
import { compare, equal, type Value } from '../value.js';
import type { BuiltinDefinition } from './registry.js';

function rel(name: string, test: (a: Value, b: Value) => boolean): BuiltinDefinition {
  return { name, args: ['any', 'any'], result: 'boolean', impl: ([a, b]) => test(a as Value, b as Value) };
}

export const comparisonBuiltins: BuiltinDefinition[] = [
  rel('equal', (a, b) => a === b || equal(a, b)),
  rel('neq', (a, b) => !(a === b || equal(a, b))),
  rel('lt', (a, b) => compare(a, b) < 0),
  rel('lte', (a, b) => compare(a, b) <= 0),
  rel('gt', (a, b) => compare(a, b) > 0),
  rel('gte', (a, b) => compare(a, b) >= 0),
];
