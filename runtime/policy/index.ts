/**
 * The Rego policy engine (our own interpreter, answering as OPA does), its
 * OPA-compatible REST server and the `policy` tools.
 *
 * This file is the complete public surface of `framework_core/policy`: names
 * are exported one by one, and a snapshot test keeps the list deliberate.
 *
 * @example
 * import { compilePolicy } from 'framework_core/policy';
 * const policy = compilePolicy({ modules: { 'authz.rego': 'package authz\n\nallow if input.admin' } });
 * policy.evaluate('authz.allow', { admin: true }); // true
 */
export { compilePolicy, CompiledPolicy, PreparedQuery } from './engine.js';
export type { Bindings, CompilePolicyOptions, QueryOptions } from './engine.js';
export type { EvalOptions } from './eval/env.js';
export { PolicyError } from './errors.js';
export type { PolicyErrorCode, SourceLocation } from './errors.js';
export { parseModule, parseQuery, parseTermText } from './parser.js';
export { formatRego, type FormatOptions } from './format/index.js';
export { RegoDecimal, RegoObject, RegoSet, compare, equal, typeName } from './value.js';
export type { NumberValue, Value } from './value.js';
export { fromJS, parseJSON, stringifyJSON, toJS } from './value-json.js';
export { formatValue } from './value-format.js';
export { BuiltinError, BuiltinRegistry, operandTypeError } from './builtins/registry.js';
export type { BuiltinContext, BuiltinDefinition } from './builtins/registry.js';
export { createDefaultRegistry, defaultRegistry } from './builtins/index.js';
export { startPolicyServer, type RunningPolicyServer, type StartPolicyServerOptions } from './server/start-policy-server.js';
export { createPolicyServer, type PolicyServerApp, type PolicyServerOptions } from './server/opa-server.js';
export { PolicyStore, type LoadStatus, type PolicyStoreOptions } from './server/policy-store.js';
export { DecisionLog, type DecisionLogOptions } from './server/decision-log.js';
export { readPolicyDirectory, type PolicyFiles, type PolicySource } from './server/policy-files.js';
export { compilePolicySet, formatProblem, PolicyLoadError, type PolicyProblem, type PolicySet } from './server/policy-set.js';
export { loadPolicySet, readInputFile } from './tools/load-policies.js';
export { runPolicyTests, type PolicyTestReport, type PolicyTestResult } from './tools/run-policy-tests.js';
export { evalQuery, type EvalOutput } from './tools/eval-query.js';
