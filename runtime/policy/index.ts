/**
 * Public surface of the Rego policy engine.
 *
 * @example
 * import { compilePolicy } from './policy/index.js';
 * const policy = compilePolicy({ modules: { 'authz.rego': 'package authz\n\nallow if input.admin' } });
 * policy.evaluate('authz.allow', { admin: true }); // true
 */
export { compilePolicy, CompiledPolicy, PreparedQuery } from './engine.js';
export type { Bindings, CompilePolicyOptions, QueryOptions } from './engine.js';
export type { EvalOptions } from './eval/env.js';
export { PolicyError } from './errors.js';
export type { PolicyErrorCode, SourceLocation } from './errors.js';
export { parseModule, parseQuery, parseTermText } from './parser.js';
export { RegoDecimal, RegoObject, RegoSet, compare, equal, typeName } from './value.js';
export type { NumberValue, Value } from './value.js';
export { fromJS, parseJSON, stringifyJSON, toJS } from './value-json.js';
export { formatValue } from './value-format.js';
export { BuiltinError, BuiltinRegistry, operandTypeError } from './builtins/registry.js';
export type { BuiltinContext, BuiltinDefinition } from './builtins/registry.js';
export { createDefaultRegistry, defaultRegistry } from './builtins/index.js';
export { runConformance, loadCases, runCase } from './conformance.js';
export type { ConformanceReport, CaseResult } from './conformance.js';
