/**
 * gqlparser's query validation rules (v2.5.36, the version OPA v1.20.2
 * builds with), written from what each reports and where. gqlparser sorts
 * its rules by name and each listens to the walk's events, so an error list
 * comes in walk order and, at one node, in rule-name order; RULES keeps that
 * order. Messages are gqlparser's, word for word (some end in a period,
 * some not).
 */
import type { GqlDefinition, GqlField, GqlSelection, GqlType, GqlValue, Pos } from './graphql-ast.js';
import { isField, isInlineFragment, typeName, typeString, VALUE_KIND } from './graphql-ast.js';
import { overlappingFieldsCanBeMerged } from './graphql-overlap.js';
import { quotedOrList, suggestionList, suggestQuoted, suggestUnquoted } from './graphql-suggest.js';
import type { Report, Rule, Walker } from './graphql-walk.js';
import { goQuote } from '../value-format.js';
import { GraphQLSyntaxError } from './graphql-lexer.js';

/** One validation error: gqlparser's message and the positions it names (the first is printed). */
export interface GqlError {
  message: string;
  locations: Pos[];
}

/** A value as gqlparser's `Value.String()` prints it in messages. */
export function valueText(v: GqlValue | null): string {
  if (v === null) return '<nil>';
  switch (v.Kind) {
    case VALUE_KIND.Variable:
      return `$${v.Raw}`;
    case VALUE_KIND.StringValue:
    case VALUE_KIND.BlockValue:
      return goQuote(v.Raw);
    case VALUE_KIND.ListValue:
      return `[${(v.Children ?? []).map((c) => valueText(c.Value)).join(',')}]`;
    case VALUE_KIND.ObjectValue:
      return `{${(v.Children ?? []).map((c) => `${c.Name}:${valueText(c.Value)}`).join(',')}}`;
    default:
      return v.Raw;
  }
}

const isLeaf = (d: GqlDefinition) => d.Kind === 'ENUM' || d.Kind === 'SCALAR';
const isComposite = (d: GqlDefinition) => d.Kind === 'OBJECT' || d.Kind === 'INTERFACE' || d.Kind === 'UNION';
const isInput = (d: GqlDefinition) => d.Kind === 'SCALAR' || d.Kind === 'ENUM' || d.Kind === 'INPUT_OBJECT';
const nonNullWithoutDefault = (a: { Type: GqlType | null; DefaultValue: GqlValue | null }) => a.Type?.NonNull === true && a.DefaultValue === null;

/** Go's strconv.ParseInt(s, 10, bits): 'ok', or why not. */
function parseIntResult(s: string, bits: 32 | 64): 'ok' | 'syntax' | 'range' {
  if (!/^[+-]?[0-9]+$/.test(s)) return 'syntax';
  const n = BigInt(s);
  const max = (1n << BigInt(bits - 1)) - 1n;
  return n > max || n < -max - 1n ? 'range' : 'ok';
}

/** Go's strconv.ParseFloat(s, 64) fails: not a number's text, or beyond a double. */
function parseFloatFails(s: string): boolean {
  const t = s.replace(/^[+-]/, '');
  if (/^(inf|infinity|nan)$/i.test(t)) return false;
  if (!/^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/.test(t)) return true;
  return !Number.isFinite(Number(t));
}

const GO_BOOLS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False']);

/** gqlparser's `Value.Value(nil)` returns an error: a number or boolean it cannot convert, here or inside, or in a variable's default. */
function valueFails(w: Walker, v: GqlValue | null): boolean {
  if (v === null) return false;
  switch (v.Kind) {
    case VALUE_KIND.Variable: {
      const def = w.value(v).variableDefinition;
      return def !== null && def.DefaultValue !== null && valueFails(w, def.DefaultValue);
    }
    case VALUE_KIND.IntValue:
      return parseIntResult(v.Raw, 64) !== 'ok';
    case VALUE_KIND.FloatValue:
      return parseFloatFails(v.Raw);
    case VALUE_KIND.BooleanValue:
      return !GO_BOOLS.has(v.Raw);
    case VALUE_KIND.ListValue:
    case VALUE_KIND.ObjectValue:
      return (v.Children ?? []).some((c) => valueFails(w, c.Value));
    default:
      return false;
  }
}

function unexpectedTypeMessage(w: Walker, v: GqlValue): string {
  const expected = typeString(w.value(v).expectedType as GqlType);
  const text = valueText(v);
  switch (expected) {
    case 'Int':
    case 'Int!':
      return parseIntResult(v.Raw, 32) === 'range'
        ? `Int cannot represent non 32-bit signed integer value: ${text}`
        : `Int cannot represent non-integer value: ${text}`;
    case 'String':
    case 'String!':
    case '[String]':
      return `String cannot represent a non string value: ${text}`;
    case 'Boolean':
    case 'Boolean!':
      return `Boolean cannot represent a non boolean value: ${text}`;
    case 'Float':
    case 'Float!':
      return `Float cannot represent non numeric value: ${text}`;
    case 'ID':
    case 'ID!':
      return `ID cannot represent a non-string and non-integer value: ${text}`;
    default:
      return w.value(v).definition?.Kind === 'ENUM'
        ? `Enum "${expected}" cannot represent non-enum value: ${text}.`
        : `Expected value of type "${expected}", found ${text}.`;
  }
}

const fieldsOnCorrectType: Rule = (w, report) => {
  w.onField.push((field) => {
    const { objectDefinition: parent, definition } = w.selection(field);
    if (parent === null || definition !== null) return;
    let message = `Cannot query field "${field.Name}" on type "${parent.Name}".`;
    const types = suggestedTypeNames(w, parent, field.Name);
    if (types.length > 0) message += ` Did you mean to use an inline fragment on ${quotedOrList(types)}?`;
    else if (parent.Kind === 'OBJECT' || parent.Kind === 'INTERFACE') {
      const fields = suggestionList(
        field.Name,
        (parent.Fields ?? []).map((f) => f.Name),
      );
      if (fields.length > 0) message += ` Did you mean ${quotedOrList(fields)}?`;
    }
    report(message, field.pos);
  });
};

/** The types under an interface or union that have the field: interfaces first, the most used first, then by name. */
function suggestedTypeNames(w: Walker, parent: GqlDefinition, name: string): string[] {
  if (parent.Kind !== 'INTERFACE' && parent.Kind !== 'UNION') return [];
  const objects: string[] = [];
  const interfaces: string[] = [];
  const uses = new Map<string, number>();
  for (const t of w.possibleTypes(parent)) {
    if (!(t.Fields ?? []).some((f) => f.Name === name)) continue;
    objects.push(t.Name);
    for (const i of t.Interfaces ?? []) {
      const def = w.type(i);
      if (def !== null && (def.Fields ?? []).some((f) => f.Name === name)) {
        if ((uses.get(i) ?? 0) === 0) interfaces.push(i);
        uses.set(i, (uses.get(i) ?? 0) + 1);
      }
    }
  }
  return [...interfaces, ...objects].sort((a, b) => (uses.get(b) ?? 0) - (uses.get(a) ?? 0) || (a < b ? -1 : a > b ? 1 : 0));
}

const fragmentsOnCompositeTypes: Rule = (w, report) => {
  w.onInlineFragment.push((inline) => {
    const t = w.type(inline.TypeCondition);
    if (t === null || isComposite(t)) return;
    report(`Fragment cannot condition on non composite type "${inline.TypeCondition}".`, inline.pos);
  });
  w.onFragment.push((frag) => {
    const t = w.fragmentType(frag);
    if (t === null || frag.TypeCondition === '' || isComposite(t)) return;
    report(`Fragment "${frag.Name}" cannot condition on non composite type "${frag.TypeCondition}".`, frag.pos);
  });
};

const knownArgumentNames: Rule = (w, report) => {
  w.onField.push((field) => {
    const { definition, objectDefinition } = w.selection(field);
    if (definition === null || objectDefinition === null) return;
    const names = (definition.Arguments ?? []).map((a) => a.Name);
    for (const arg of field.Arguments ?? []) {
      if (names.includes(arg.Name)) continue;
      report(`Unknown argument "${arg.Name}" on field "${objectDefinition.Name}.${field.Name}".${suggestQuoted('Did you mean', arg.Name, names)}`, field.pos);
    }
  });
  w.onDirective.push((dir) => {
    const def = w.directive(dir).definition;
    if (def === null) return;
    const names = (def.Arguments ?? []).map((a) => a.Name);
    for (const arg of dir.Arguments ?? []) {
      if (names.includes(arg.Name)) continue;
      report(`Unknown argument "${arg.Name}" on directive "@${dir.Name}".${suggestQuoted('Did you mean', arg.Name, names)}`, dir.pos);
    }
  });
};

const knownDirectives: Rule = (w, report) => {
  const seen = new Set<string>();
  w.onDirective.push((dir) => {
    const { definition, location } = w.directive(dir);
    if (definition === null) {
      report(`Unknown directive "@${dir.Name}".`, dir.pos);
      return;
    }
    if ((definition.Locations ?? []).includes(location)) return;
    const key = `${dir.Name}\u0000${dir.pos?.line ?? 0}:${dir.pos?.column ?? 0}`;
    if (seen.has(key)) return;
    seen.add(key);
    report(`Directive "@${dir.Name}" may not be used on ${location}.`, dir.pos);
  });
};

const knownFragmentNames: Rule = (w, report) => {
  w.onFragmentSpread.push((spread) => {
    if (w.selection(spread).fragment === null) report(`Unknown fragment "${spread.Name}".`, spread.pos);
  });
};

const knownRootType: Rule = (w, report) => {
  w.onOperation.push((op) => {
    // Only a query given as an AST object can name another operation type; gqlparser panics on it, and OPA's call fails.
    if (!['', 'query', 'mutation', 'subscription'].includes(op.Operation)) throw new GraphQLSyntaxError(`got unknown operation type "${op.Operation}"`, 0, 0);
    const root = op.Operation === 'mutation' ? w.schema.mutation : op.Operation === 'subscription' ? w.schema.subscription : w.schema.query;
    if (root === null) report(`Schema does not support operation type "${op.Operation}"`, op.pos);
  });
};

const knownTypeNames: Rule = (w, report) => {
  w.onVariable.push((v) => {
    const name = v.Type === null ? '' : typeName(v.Type);
    if (w.type(name) === null) report(`Unknown type "${name}".`, v.pos);
  });
  w.onInlineFragment.push((inline) => {
    if (inline.TypeCondition !== '' && w.type(inline.TypeCondition) === null) report(`Unknown type "${inline.TypeCondition}".`, inline.pos);
  });
  w.onFragment.push((frag) => {
    if (w.type(frag.TypeCondition) !== null) return;
    report(`Unknown type "${frag.TypeCondition}".${suggestQuoted('Did you mean', frag.TypeCondition, [...w.schema.types.keys()])}`, frag.pos);
  });
};

const loneAnonymousOperation: Rule = (w, report) => {
  w.onOperation.push((op) => {
    if (op.Name === '' && (w.document.Operations ?? []).length > 1) report('This anonymous operation must be the only defined operation.', op.pos);
  });
};

const INTROSPECTION_LISTS = new Set(['fields', 'interfaces', 'possibleTypes', 'inputFields']);

const maxIntrospectionDepth: Rule = (w, report) => {
  const tooDeep = (sels: GqlSelection[] | null, visited: Set<string>, depth: number): boolean => {
    for (const s of sels ?? []) {
      if (isField(s)) {
        if (fieldTooDeep(s, visited, depth)) return true;
      } else if (isInlineFragment(s)) {
        if (tooDeep(s.SelectionSet, visited, depth)) return true;
      } else {
        const frag = w.selection(s).fragment;
        if (visited.has(s.Name) || frag === null) continue;
        visited.add(s.Name);
        const deep = tooDeep(frag.SelectionSet, visited, depth);
        visited.delete(s.Name);
        if (deep) return true;
      }
    }
    return false;
  };
  const fieldTooDeep = (field: GqlField, visited: Set<string>, depth: number): boolean => {
    if (INTROSPECTION_LISTS.has(field.Name) && ++depth >= 3) return true;
    return tooDeep(field.SelectionSet, visited, depth);
  };
  w.onField.push((field) => {
    if ((field.Name === '__schema' || field.Name === '__type') && fieldTooDeep(field, new Set(), 0)) {
      report('Maximum introspection depth exceeded', field.pos);
    }
  });
};

/** The fragment spreads under a selection set, in gqlparser's order (a stack: nested sets last in, first out). */
function fragmentSpreads(set: GqlSelection[] | null): GqlSelection[] {
  const out: GqlSelection[] = [];
  const stack = [set ?? []];
  while (stack.length > 0) {
    for (const s of stack.pop() as GqlSelection[]) {
      if (isField(s) || isInlineFragment(s)) stack.push(s.SelectionSet ?? []);
      else out.push(s);
    }
  }
  return out;
}

const noFragmentCycles: Rule = (w, report) => {
  const visited = new Set<string>();
  w.onFragment.push((fragment) => {
    const path: Array<{ Name: string }> = [];
    const indexByName = new Map<string, number>();
    const visit = (frag: typeof fragment): void => {
      if (visited.has(frag.Name)) return;
      visited.add(frag.Name);
      const spreads = fragmentSpreads(frag.SelectionSet) as Array<{ Name: string; pos?: Pos }>;
      if (spreads.length === 0) return;
      indexByName.set(frag.Name, path.length);
      for (const spread of spreads) {
        const cycleAt = indexByName.get(spread.Name);
        path.push(spread);
        if (cycleAt === undefined) {
          const next = w.fragment(spread.Name);
          if (next !== null) visit(next);
        } else {
          const via = path.slice(cycleAt, -1).map((s) => `"${s.Name}"`);
          report(`Cannot spread fragment "${spread.Name}" within itself${via.length > 0 ? ` via ${via.join(', ')}` : ''}.`, spread.pos);
        }
        path.pop();
      }
      indexByName.delete(frag.Name);
    };
    visit(fragment);
  });
};

const noUndefinedVariables: Rule = (w, report) => {
  w.onValue.push((v) => {
    const op = w.currentOperation;
    if (op === null || v.Kind !== VALUE_KIND.Variable || w.value(v).variableDefinition !== null) return;
    report(op.Name !== '' ? `Variable "$${v.Raw}" is not defined by operation "${op.Name}".` : `Variable "$${v.Raw}" is not defined.`, v.pos);
  });
};

const noUnusedFragments: Rule = (w, report) => {
  let inFragmentDefinition = false;
  const used = new Set<string>();
  w.onFragmentSpread.push((spread) => {
    if (!inFragmentDefinition) used.add(spread.Name);
  });
  w.onFragment.push((frag) => {
    inFragmentDefinition = true;
    if (!used.has(frag.Name)) report(`Fragment "${frag.Name}" is never used.`, frag.pos);
  });
};

const noUnusedVariables: Rule = (w, report) => {
  w.onOperation.push((op) => {
    for (const v of op.VariableDefinitions ?? []) {
      if (w.isUsed(v)) continue;
      report(op.Name !== '' ? `Variable "$${v.Variable}" is never used in operation "${op.Name}".` : `Variable "$${v.Variable}" is never used.`, v.pos);
    }
  });
};

const possibleFragmentSpreads: Rule = (w, report) => {
  /** True when a fragment on `typeCondition` can never apply where `parent` is selected. */
  const impossible = (parent: GqlDefinition | null, typeCondition: string): boolean => {
    if (parent === null) return false;
    let parents: GqlDefinition[];
    if (parent.Kind === 'OBJECT') parents = [parent];
    else if (parent.Kind === 'INTERFACE' || parent.Kind === 'UNION') parents = w.possibleTypes(parent);
    else return false;
    const t = w.type(typeCondition);
    if (t === null || !isComposite(t)) return false;
    return !w.possibleTypes(t).some((f) => parents.some((p) => p.Name === f.Name));
  };
  w.onInlineFragment.push((inline) => {
    const parent = w.selection(inline).objectDefinition;
    if (impossible(parent, inline.TypeCondition)) {
      report(`Fragment cannot be spread here as objects of type "${parent?.Name}" can never be of type "${inline.TypeCondition}".`, inline.pos);
    }
  });
  w.onFragmentSpread.push((spread) => {
    const { fragment, objectDefinition: parent } = w.selection(spread);
    if (fragment === null || !impossible(parent, fragment.TypeCondition)) return;
    report(
      `Fragment "${spread.Name}" cannot be spread here as objects of type "${parent?.Name}" can never be of type "${fragment.TypeCondition}".`,
      spread.pos,
    );
  });
};

const providedRequiredArguments: Rule = (w, report) => {
  w.onField.push((field) => {
    const def = w.selection(field).definition;
    if (def === null) return;
    for (const a of def.Arguments ?? []) {
      if (!nonNullWithoutDefault(a) || (field.Arguments ?? []).some((x) => x.Name === a.Name)) continue;
      report(`Field "${field.Name}" argument "${a.Name}" of type "${typeString(a.Type as GqlType)}" is required, but it was not provided.`, field.pos);
    }
  });
  w.onDirective.push((dir) => {
    const def = w.directive(dir).definition;
    if (def === null) return;
    for (const a of def.Arguments ?? []) {
      if (!nonNullWithoutDefault(a) || (dir.Arguments ?? []).some((x) => x.Name === a.Name)) continue;
      report(`Directive "@${def.Name}" argument "${a.Name}" of type "${typeString(a.Type as GqlType)}" is required, but it was not provided.`, dir.pos);
    }
  });
};

const scalarLeafs: Rule = (w, report) => {
  w.onField.push((field) => {
    const def = w.selection(field).definition;
    if (def === null || def.Type === null) return;
    const t = w.type(typeName(def.Type));
    if (t === null) return;
    const selected = (field.SelectionSet ?? []).length > 0;
    if (isLeaf(t) && selected) report(`Field "${field.Name}" must not have a selection since type "${t.Name}" has no subfields.`, field.pos);
    if (!isLeaf(t) && !selected) {
      report(`Field "${field.Name}" of type "${typeString(def.Type)}" must have a selection of subfields. Did you mean "${field.Name} { ... }"?`, field.pos);
    }
  });
};

const singleFieldSubscriptions: Rule = (w, report) => {
  w.onOperation.push((op) => {
    if (w.schema.subscription === null || op.Operation !== 'subscription') return;
    const fields: Array<{ name: string; pos: Pos | undefined }> = [];
    const entered = new Set<string>();
    const collect = (set: GqlSelection[] | null): void => {
      for (const s of set ?? []) {
        if (isField(s)) fields.push({ name: s.Name, pos: s.pos });
        else if (isInlineFragment(s)) collect(s.SelectionSet);
        else {
          const frag = w.selection(s).fragment;
          // gqlparser stops reading this selection set at an unknown fragment.
          if (frag === null) return;
          if (!entered.has(frag.Name)) {
            entered.add(frag.Name);
            collect(frag.SelectionSet);
          }
        }
      }
    };
    collect(op.SelectionSet);
    const seen = new Set<string>();
    const unique = fields.filter((f) => !seen.has(f.name) && seen.add(f.name) !== undefined);
    const name = op.Name !== '' ? `Subscription ${goQuote(op.Name)}` : 'Anonymous Subscription';
    if (unique.length > 1) report(`${name} must select only one top level field.`, unique[1]?.pos);
    for (const f of unique) if (f.name.startsWith('__')) report(`${name} must not select an introspection top level field.`, f.pos);
  });
};

const uniqueArgumentNames: Rule = (w, report) => {
  const check = (args: Array<{ Name: string; pos?: Pos }> | null) => {
    const counts = new Map<string, number>();
    for (const a of args ?? []) {
      if (counts.get(a.Name) === 1) report(`There can be only one argument named "${a.Name}".`, a.pos);
      counts.set(a.Name, (counts.get(a.Name) ?? 0) + 1);
    }
  };
  w.onField.push((field) => check(field.Arguments));
  w.onDirective.push((dir) => check(dir.Arguments));
};

const uniqueDirectivesPerLocation: Rule = (w, report) => {
  w.onDirectiveList.push((dirs) => {
    const seen = new Set<string>();
    for (const dir of dirs) {
      const def = w.directive(dir).definition;
      if ((def === null || !def.IsRepeatable) && seen.has(dir.Name)) report(`The directive "@${dir.Name}" can only be used once at this location.`, dir.pos);
      seen.add(dir.Name);
    }
  });
};

const uniqueFragmentNames: Rule = (w, report) => {
  const seen = new Set<string>();
  w.onFragment.push((frag) => {
    if (seen.has(frag.Name)) report(`There can be only one fragment named "${frag.Name}".`, frag.pos);
    seen.add(frag.Name);
  });
};

const uniqueInputFieldNames: Rule = (w, report) => {
  w.onValue.push((v) => {
    if (v.Kind !== VALUE_KIND.ObjectValue) return;
    const seen = new Set<string>();
    for (const c of v.Children ?? []) {
      if (seen.has(c.Name)) report(`There can be only one input field named "${c.Name}".`, c.pos);
      seen.add(c.Name);
    }
  });
};

const uniqueOperationNames: Rule = (w, report) => {
  const seen = new Set<string>();
  w.onOperation.push((op) => {
    if (seen.has(op.Name)) report(`There can be only one operation named "${op.Name}".`, op.pos);
    seen.add(op.Name);
  });
};

const uniqueVariableNames: Rule = (w, report) => {
  w.onOperation.push((op) => {
    const counts = new Map<string, number>();
    for (const v of op.VariableDefinitions ?? []) {
      if (counts.get(v.Variable) === 1) report(`There can be only one variable named "$${v.Variable}".`, v.pos);
      counts.set(v.Variable, (counts.get(v.Variable) ?? 0) + 1);
    }
  });
};

const BUILT_IN_SCALARS = ['Int', 'Float', 'String', 'Boolean', 'ID'];

const valuesOfCorrectType: Rule = (w, report) => {
  w.onValue.push((v) => {
    const { definition: def, expectedType: expected } = w.value(v);
    if (def === null || expected === null) return;
    if (v.Kind === VALUE_KIND.NullValue && expected.NonNull) report(`Expected value of type "${typeString(expected)}", found ${valueText(v)}.`, v.pos);
    // Custom scalars validate themselves.
    if (def.Kind === 'SCALAR' && !BUILT_IN_SCALARS.includes(def.Name)) return;
    const enums = def.Kind === 'ENUM' ? (def.EnumValues ?? []).map((e) => e.Name) : [];
    const unexpected = () => report(unexpectedTypeMessage(w, v), v.pos);
    if (valueFails(w, v)) unexpected();
    const is = (...names: string[]) => names.includes(def.Name);
    switch (v.Kind) {
      case VALUE_KIND.ListValue:
        if (expected.Elem === null) unexpected();
        return;
      case VALUE_KIND.IntValue:
        if (!is('Int', 'Float', 'ID')) unexpected();
        return;
      case VALUE_KIND.FloatValue:
        if (!is('Float')) unexpected();
        return;
      case VALUE_KIND.StringValue:
      case VALUE_KIND.BlockValue:
        if (def.Kind === 'ENUM') {
          report(
            `Enum "${typeString(expected)}" cannot represent non-enum value: ${valueText(v)}.${suggestQuoted('Did you mean the enum value', v.Raw, enums)}`,
            v.pos,
          );
        } else if (!is('String', 'ID')) unexpected();
        return;
      case VALUE_KIND.EnumValue:
        if (def.Kind !== 'ENUM') report(`${unexpectedTypeMessage(w, v)}${suggestUnquoted('Did you mean the enum value', v.Raw, enums)}`, v.pos);
        else if (!enums.includes(v.Raw)) {
          report(
            `Value "${valueText(v)}" does not exist in "${typeString(expected)}" enum.${suggestQuoted('Did you mean the enum value', v.Raw, enums)}`,
            v.pos,
          );
        }
        return;
      case VALUE_KIND.BooleanValue:
        if (!is('Boolean')) unexpected();
        return;
      case VALUE_KIND.ObjectValue:
        objectValueErrors(v, def, report);
        return;
      default:
        return;
    }
  });
};

function objectValueErrors(v: GqlValue, def: GqlDefinition, report: Report): void {
  const children = v.Children ?? [];
  const fields = def.Fields ?? [];
  for (const f of fields) {
    if (f.Type?.NonNull !== true) continue;
    const given = children.find((c) => c.Name === f.Name);
    if ((given === undefined || given.Value === null) && f.DefaultValue === null) {
      report(`Field "${def.Name}.${f.Name}" of required type "${typeString(f.Type)}" was not provided.`, v.pos);
    }
  }
  for (const dir of def.Directives ?? []) {
    if (dir.Name !== 'oneOf') continue;
    if (children.length !== 1) {
      report(`OneOf Input Object "${def.Name}" must specify exactly one key.`, v.pos);
      continue;
    }
    const only = children[0]?.Value ?? null;
    if (only === null || only.Kind === VALUE_KIND.NullValue) report(`Field "${def.Name}.${fields[0]?.Name ?? ''}" must be non-null.`, only?.pos);
  }
  const names = fields.map((f) => f.Name);
  for (const c of children) {
    if (names.includes(c.Name)) continue;
    report(`Field "${c.Name}" is not defined by type "${def.Name}".${suggestQuoted('Did you mean', c.Name, names)}`, c.pos);
  }
}

const variablesAreInputTypes: Rule = (w, report) => {
  w.onOperation.push((op) => {
    for (const v of op.VariableDefinitions ?? []) {
      const def = w.variableType(v);
      if (def !== null && !isInput(def)) report(`Variable "$${v.Variable}" cannot be non-input type "${typeString(v.Type as GqlType)}".`, v.pos);
    }
  });
};

/** gqlparser's `Type.IsCompatible`: a variable of type `t` may stand where `other` is expected. */
function isCompatible(t: GqlType | null, other: GqlType | null): boolean {
  if (t === null || other === null) return t === other;
  if (t.NamedType !== other.NamedType) return false;
  if (t.Elem !== null && other.Elem === null) return false;
  if (t.Elem !== null && !isCompatible(t.Elem, other.Elem)) return false;
  return other.NonNull ? t.NonNull : true;
}

const variablesInAllowedPosition: Rule = (w, report) => {
  w.onValue.push((v) => {
    const { expectedType, variableDefinition: def, expectedTypeHasDefault } = w.value(v);
    if (v.Kind !== VALUE_KIND.Variable || expectedType === null || def === null || w.currentOperation === null) return;
    const allowed = { ...expectedType };
    if (def.DefaultValue !== null && def.DefaultValue.Kind !== VALUE_KIND.NullValue && expectedType.NonNull) allowed.NonNull = false;
    if (expectedTypeHasDefault) allowed.NonNull = false;
    if (!isCompatible(def.Type, allowed)) {
      report(`Variable "${valueText(v)}" of type "${typeString(def.Type as GqlType)}" used in position expecting type "${typeString(expectedType)}".`, v.pos);
    }
  });
  w.onValue.push((v) => {
    const def = w.value(v).definition;
    if (v.Kind !== VALUE_KIND.ObjectValue || def === null || !(def.Directives ?? []).some((d) => d.Name === 'oneOf')) return;
    for (const c of v.Children ?? []) {
      const fv = c.Value;
      if (fv === null || fv.Kind !== VALUE_KIND.Variable) continue;
      const varDef = w.value(fv).variableDefinition;
      if (varDef === null || varDef.Type?.NonNull === true) continue;
      report(
        `Variable "${valueText(fv)}" is of type "${typeString(varDef.Type as GqlType)}" but must be non-nullable to be used for OneOf Input Object "${def.Name}".`,
        varDef.pos,
        fv.pos,
      );
    }
  });
};

/** gqlparser's default rules, in the order it runs them (sorted by name). */
export const RULES: readonly Rule[] = [
  fieldsOnCorrectType,
  fragmentsOnCompositeTypes,
  knownArgumentNames,
  knownDirectives,
  knownFragmentNames,
  knownRootType,
  knownTypeNames,
  loneAnonymousOperation,
  maxIntrospectionDepth,
  noFragmentCycles,
  noUndefinedVariables,
  noUnusedFragments,
  noUnusedVariables,
  overlappingFieldsCanBeMerged,
  possibleFragmentSpreads,
  providedRequiredArguments,
  scalarLeafs,
  singleFieldSubscriptions,
  uniqueArgumentNames,
  uniqueDirectivesPerLocation,
  uniqueFragmentNames,
  uniqueInputFieldNames,
  uniqueOperationNames,
  uniqueVariableNames,
  valuesOfCorrectType,
  variablesAreInputTypes,
  variablesInAllowedPosition,
];
