/**
 * The default builtin registry: every family shipped with the engine.
 * To add a family, export a `BuiltinDefinition[]` from its file and list it here.
 */
import { aggregateBuiltins } from './aggregates.js';
import { arithmeticBuiltins } from './arithmetic.js';
import { arrayBuiltins } from './arrays.js';
import { bitsBuiltins } from './bits.js';
import { castBuiltins } from './casts.js';
import { comparisonBuiltins } from './comparison.js';
import { cryptoBuiltins } from './crypto.js';
import { encodingBuiltins } from './encoding.js';
import { globBuiltins } from './glob.js';
import { templateBuiltins } from './go-template.js';
import { graphBuiltins } from './graph.js';
import { graphqlBuiltins } from './graphql.js';
import { httpBuiltins } from './http.js';
import { internalBuiltins } from './internal.js';
import { jsonOpsBuiltins } from './json-ops.js';
import { jsonBuiltins } from './json.js';
import { jsonSchemaBuiltins } from './json-schema.js';
import { x509Builtins } from './x509.js';
import { regoParseBuiltins } from './rego-parse.js';
import { netLookupBuiltins } from './net-lookup.js';
import { awsSignBuiltins } from './aws-sign.js';
import { yamlBuiltins } from './yaml.js';
import { jwtBuiltins } from './jwt.js';
import { netBuiltins } from './net.js';
import { objectBuiltins } from './objects.js';
import { randBuiltins } from './rand.js';
import { regexBuiltins } from './regex.js';
import { BuiltinRegistry, type BuiltinDefinition } from './registry.js';
import { semverBuiltins } from './semver.js';
import { setBuiltins } from './sets.js';
import { sprintfBuiltins } from './sprintf.js';
import { stringBuiltins } from './strings.js';
import { timeBuiltins } from './time.js';
import { typeBuiltins } from './types.js';
import { unitsBuiltins } from './units.js';
import { uriBuiltins } from './uri.js';
import { uuidBuiltins } from './uuid.js';
import { walkBuiltins } from './walk.js';

export const builtinFamilies: ReadonlyArray<readonly BuiltinDefinition[]> = [
  comparisonBuiltins,
  arithmeticBuiltins,
  bitsBuiltins,
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
  graphBuiltins,
  randBuiltins,
  httpBuiltins,
  templateBuiltins,
  // Families contributed on top of the core (one file each).
  regexBuiltins,
  globBuiltins,
  encodingBuiltins,
  uriBuiltins,
  jsonBuiltins,
  yamlBuiltins,
  cryptoBuiltins,
  jwtBuiltins,
  netBuiltins,
  unitsBuiltins,
  semverBuiltins,
  uuidBuiltins,
  timeBuiltins,
  internalBuiltins,
  jsonSchemaBuiltins,
  x509Builtins,
  regoParseBuiltins,
  netLookupBuiltins,
  awsSignBuiltins,
  graphqlBuiltins,
];

/** A fresh registry with every builtin family. */
export function createDefaultRegistry(): BuiltinRegistry {
  const r = new BuiltinRegistry();
  for (const family of builtinFamilies) r.registerAll(family);
  return r;
}

export const defaultRegistry: BuiltinRegistry = createDefaultRegistry();
