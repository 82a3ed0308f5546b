/**
 * gqlparser's validation walk: operations in order (their variables, then
 * default values and directives, then the selection set, each fragment
 * spread walked into the first time an operation meets it), then every
 * fragment definition on its own. Rules observe events, each fired after
 * the node's children were walked, in the order the rules registered.
 *
 * gqlparser writes what the walk learns (a field's definition, a value's
 * expected type, a variable's use) into the AST nodes, and rules read it,
 * including what an earlier walk of a shared fragment left there. Parsed
 * documents are cached and shared here, so the walk keeps the same facts in
 * tables of its own that live for one validation.
 */
import type {
  GqlArgument,
  GqlArgumentDefinition,
  GqlDefinition,
  GqlDirective,
  GqlDirectiveDefinition,
  GqlField,
  GqlFieldDefinition,
  GqlFragmentDefinition,
  GqlFragmentSpread,
  GqlInlineFragment,
  GqlOperationDefinition,
  GqlQueryDocument,
  GqlSelection,
  GqlType,
  GqlValue,
  GqlVariableDefinition,
  Pos,
} from './graphql-ast.js';
import { isField, isInlineFragment, typeName, VALUE_KIND } from './graphql-ast.js';
import type { GqlSchema } from './graphql-schema.js';

/** What the walk learnt about a value. */
export interface ValueFacts {
  expectedType: GqlType | null;
  definition: GqlDefinition | null;
  variableDefinition: GqlVariableDefinition | null;
  expectedTypeHasDefault: boolean;
}

/** What the walk learnt about a field, inline fragment or fragment spread. */
export interface SelectionFacts {
  /** The field's definition (fields only). */
  definition: GqlFieldDefinition | null;
  /** The type the selection was made on. */
  objectDefinition: GqlDefinition | null;
  /** The spread's fragment (spreads only). */
  fragment: GqlFragmentDefinition | null;
}

export interface DirectiveFacts {
  definition: GqlDirectiveDefinition | null;
  location: string;
}

type Listener<T> = (node: T) => void;

/** How a rule reports an error: gqlparser's message and the positions it names (the first is printed). */
export type Report = (message: string, ...at: Array<Pos | undefined>) => void;
/** A validation rule: it registers its callbacks on the walker, and reports through `report`. */
export type Rule = (w: Walker, report: Report) => void;

/** One validation's walk: the events rules listen to and the facts they read. */
export class Walker {
  readonly onOperation: Listener<GqlOperationDefinition>[] = [];
  readonly onField: Listener<GqlField>[] = [];
  readonly onFragment: Listener<GqlFragmentDefinition>[] = [];
  readonly onInlineFragment: Listener<GqlInlineFragment>[] = [];
  readonly onFragmentSpread: Listener<GqlFragmentSpread>[] = [];
  readonly onDirective: Listener<GqlDirective>[] = [];
  readonly onDirectiveList: Listener<GqlDirective[]>[] = [];
  readonly onValue: Listener<GqlValue>[] = [];
  readonly onVariable: Listener<GqlVariableDefinition>[] = [];

  /** The operation being walked; null while fragment definitions are walked. */
  currentOperation: GqlOperationDefinition | null = null;

  private readonly values = new Map<GqlValue, ValueFacts>();
  private readonly selections = new Map<GqlSelection, SelectionFacts>();
  private readonly directives = new Map<GqlDirective, DirectiveFacts>();
  private readonly fragmentTypes = new Map<GqlFragmentDefinition, GqlDefinition | null>();
  private readonly variableTypes = new Map<GqlVariableDefinition, GqlDefinition | null>();
  private readonly usedVariables = new Set<GqlVariableDefinition>();
  private walkedSpreads = new Set<string>();

  constructor(
    readonly schema: GqlSchema,
    readonly document: GqlQueryDocument,
  ) {}

  type(name: string): GqlDefinition | null {
    return this.schema.types.get(name) ?? null;
  }

  possibleTypes(def: GqlDefinition): GqlDefinition[] {
    return this.schema.possibleTypes.get(def.Name) ?? [];
  }

  value(v: GqlValue): ValueFacts {
    let f = this.values.get(v);
    if (f === undefined) {
      f = { expectedType: null, definition: null, variableDefinition: null, expectedTypeHasDefault: v.ExpectedTypeHasDefault === true };
      this.values.set(v, f);
    }
    return f;
  }

  selection(s: GqlSelection): SelectionFacts {
    let f = this.selections.get(s);
    if (f === undefined) this.selections.set(s, (f = { definition: null, objectDefinition: null, fragment: null }));
    return f;
  }

  directive(d: GqlDirective): DirectiveFacts {
    return this.directives.get(d) ?? { definition: null, location: '' };
  }

  fragmentType(f: GqlFragmentDefinition): GqlDefinition | null {
    return this.fragmentTypes.get(f) ?? null;
  }

  variableType(v: GqlVariableDefinition): GqlDefinition | null {
    return this.variableTypes.get(v) ?? null;
  }

  isUsed(v: GqlVariableDefinition): boolean {
    return v.Used === true || this.usedVariables.has(v);
  }

  fragment(name: string): GqlFragmentDefinition | null {
    return (this.document.Fragments ?? []).find((f) => f.Name === name) ?? null;
  }

  walk(): void {
    for (const op of this.document.Operations ?? []) {
      this.walkedSpreads = new Set();
      this.walkOperation(op);
    }
    for (const frag of this.document.Fragments ?? []) {
      this.walkedSpreads = new Set();
      this.walkFragment(frag);
    }
  }

  private walkOperation(op: GqlOperationDefinition): void {
    this.currentOperation = op;
    const vars = op.VariableDefinitions ?? [];
    for (const v of vars) {
      const def = this.type(v.Type === null ? '' : typeName(v.Type));
      this.variableTypes.set(v, def);
      for (const f of this.onVariable) f(v);
      if (v.DefaultValue !== null) {
        const facts = this.value(v.DefaultValue);
        facts.expectedType = v.Type;
        facts.definition = def;
      }
    }
    let root: GqlDefinition | null = null;
    let location = '';
    if (op.Operation === 'query' || op.Operation === '') [root, location] = [this.schema.query, 'QUERY'];
    else if (op.Operation === 'mutation') [root, location] = [this.schema.mutation, 'MUTATION'];
    else if (op.Operation === 'subscription') [root, location] = [this.schema.subscription, 'SUBSCRIPTION'];
    for (const v of vars) {
      if (v.DefaultValue !== null) this.walkValue(v.DefaultValue);
      this.walkDirectives(v.Directives, 'VARIABLE_DEFINITION');
    }
    this.walkDirectives(op.Directives, location);
    this.walkSelectionSet(root, op.SelectionSet);
    for (const f of this.onOperation) f(op);
    this.currentOperation = null;
  }

  private walkFragment(frag: GqlFragmentDefinition): void {
    const def = this.type(frag.TypeCondition);
    this.fragmentTypes.set(frag, def);
    this.walkDirectives(frag.Directives, 'FRAGMENT_DEFINITION');
    this.walkSelectionSet(def, frag.SelectionSet);
    for (const f of this.onFragment) f(frag);
  }

  private walkDirectives(dirs: GqlDirective[] | null, location: string): void {
    const list = dirs ?? [];
    for (const dir of list) {
      const def = this.schema.directives.get(dir.Name) ?? null;
      this.directives.set(dir, { definition: def, location });
      for (const arg of dir.Arguments ?? []) this.walkArgument(def?.Arguments?.find((a) => a.Name === arg.Name) ?? null, arg);
      for (const f of this.onDirective) f(dir);
    }
    for (const f of this.onDirectiveList) f(list);
  }

  private walkValue(value: GqlValue): void {
    const facts = this.value(value);
    if (value.Kind === VALUE_KIND.Variable && this.currentOperation !== null) {
      facts.variableDefinition = (this.currentOperation.VariableDefinitions ?? []).find((v) => v.Variable === value.Raw) ?? null;
      if (facts.variableDefinition !== null) this.usedVariables.add(facts.variableDefinition);
    }
    if (value.Kind === VALUE_KIND.ObjectValue) {
      for (const child of value.Children ?? []) {
        if (child.Value === null) continue;
        const fieldDef = facts.definition?.Fields?.find((f) => f.Name === child.Name);
        if (fieldDef !== undefined && fieldDef.Type !== null) {
          const c = this.value(child.Value);
          c.expectedType = fieldDef.Type;
          c.expectedTypeHasDefault = fieldDef.DefaultValue !== null && fieldDef.DefaultValue.Kind !== VALUE_KIND.NullValue;
          c.definition = this.type(typeName(fieldDef.Type));
        }
        this.walkValue(child.Value);
      }
    }
    if (value.Kind === VALUE_KIND.ListValue) {
      for (const child of value.Children ?? []) {
        if (child.Value === null) continue;
        if (facts.expectedType?.Elem != null) {
          const c = this.value(child.Value);
          c.expectedType = facts.expectedType.Elem;
          c.definition = facts.definition;
        }
        this.walkValue(child.Value);
      }
    }
    for (const f of this.onValue) f(value);
  }

  private walkArgument(argDef: GqlArgumentDefinition | null, arg: GqlArgument): void {
    if (arg.Value === null) return;
    if (argDef !== null && argDef.Type !== null) {
      const facts = this.value(arg.Value);
      facts.expectedType = argDef.Type;
      facts.expectedTypeHasDefault = argDef.DefaultValue !== null && argDef.DefaultValue.Kind !== VALUE_KIND.NullValue;
      facts.definition = this.type(typeName(argDef.Type));
    }
    this.walkValue(arg.Value);
  }

  private walkSelectionSet(parent: GqlDefinition | null, set: GqlSelection[] | null): void {
    for (const s of set ?? []) this.walkSelection(parent, s);
  }

  private walkSelection(parent: GqlDefinition | null, s: GqlSelection): void {
    const facts = this.selection(s);
    if (isField(s)) {
      const def = s.Name === '__typename' ? TYPENAME : (parent?.Fields?.find((f) => f.Name === s.Name) ?? null);
      facts.definition = def;
      facts.objectDefinition = parent;
      const next = def !== null && def.Type !== null ? this.type(typeName(def.Type)) : null;
      for (const arg of s.Arguments ?? []) this.walkArgument(def?.Arguments?.find((a) => a.Name === arg.Name) ?? null, arg);
      this.walkDirectives(s.Directives, 'FIELD');
      this.walkSelectionSet(next, s.SelectionSet);
      for (const f of this.onField) f(s);
    } else if (isInlineFragment(s)) {
      facts.objectDefinition = parent;
      const next = s.TypeCondition !== '' ? this.type(s.TypeCondition) : parent;
      this.walkDirectives(s.Directives, 'INLINE_FRAGMENT');
      this.walkSelectionSet(next, s.SelectionSet);
      for (const f of this.onInlineFragment) f(s);
    } else {
      const def = this.fragment(s.Name);
      facts.fragment = def;
      facts.objectDefinition = parent;
      const next = def !== null ? this.type(def.TypeCondition) : null;
      this.walkDirectives(s.Directives, 'FRAGMENT_SPREAD');
      if (def !== null && !this.walkedSpreads.has(def.Name)) {
        this.walkedSpreads.add(def.Name);
        this.walkDirectives(def.Directives, 'FRAGMENT_DEFINITION');
        this.walkSelectionSet(next, def.SelectionSet);
      }
      for (const f of this.onFragmentSpread) f(s);
    }
  }
}

/** `__typename`, which every selection may ask for. */
const TYPENAME: GqlFieldDefinition = {
  Description: '',
  Name: '__typename',
  DefaultValue: null,
  Type: { NamedType: 'String', Elem: null, NonNull: false },
  Directives: null,
  Arguments: null,
};
