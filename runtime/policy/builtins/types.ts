/** Type builtins: is_number, is_string, ..., type_name. */
import { typeName, type TypeName, type Value } from '../value.js';
import type { BuiltinDefinition } from './registry.js';

function is(name: string, t: TypeName): BuiltinDefinition {
  return { name, args: ['any'], result: 'boolean', impl: ([v]) => (typeName(v as Value) === t ? true : false) };
}

export const typeBuiltins: BuiltinDefinition[] = [
  is('is_number', 'number'),
  is('is_string', 'string'),
  is('is_boolean', 'boolean'),
  is('is_array', 'array'),
  is('is_set', 'set'),
  is('is_object', 'object'),
  is('is_null', 'null'),
  { name: 'type_name', args: ['any'], result: 'string', impl: ([v]) => typeName(v as Value) },
];
