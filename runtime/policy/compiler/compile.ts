/**
 * The compilation pipeline, in OPA's stage order: parse, resolve refs,
 * rewrite local vars, rewrite print calls, expand nested calls, move
 * evaluated terms out of rule heads and `with` values, build the rule tree,
 * safety (reorder bodies, report unsafe vars), rewrite dynamic call
 * arguments, then check recursion and calls.
 */
import type { Body, Expr, Module, Rule, Term, With } from '../ast.js';
import { mkVar, opRef, refName } from '../ast.js';
import type { BuiltinRegistry } from '../builtins/registry.js';
import { combineErrors, PolicyError } from '../errors.js';
import { parseModule, type RegoVersion } from '../parser.js';
import { rewriteMetadataCalls } from './metadata.js';
import type { Value } from '../value.js';
import { checkCalls, checkRecursion, dataRefPrefix, functionNode } from './checks.js';
import { checkRootDocumentOverrides } from './root-overrides.js';
import { Expander, printInTerm, rewriteDynamics, rewritePrint } from './expand.js';
import { LocalRewriter, VarGen } from './locals.js';
import { resolveModules, resolveQuery } from './resolve.js';
import { buildRuleTree, type PreparedRule, type RuleNode } from './rule-tree.js';
import { SafetyChecker } from './safety.js';
import type { RegoType } from './rego-type.js';
import { placeAnnotations, ruleSchemaEnvs, schemaKey, type SchemaSet } from './schema-annotations.js';
import { schemaType, SchemaTypeError } from './schema-type.js';
import { RuleTypes } from './type-infer.js';
import { checkQueryTypes, checkTypes } from './types.js';
import { isConstantTerm, termVars } from './walk.js';

export interface ModuleSource {
  /** File name used in locations and error messages. */
  file: string;
  source: string;
  /** 0 for Rego v0 (`--v0-compatible`, a bundle's `rego_version: 0`); v1 when absent. */
  regoVersion?: RegoVersion;
}

export interface CompilerOptions {
  /**
   * JSON schemas (`--schema`): the root one (key `""`) types `input` everywhere, as OPA's compiler types it
   * with a schema set; the others are what annotations name as `schema.a.b`.
   */
  schemas?: SchemaSet;
  /**
   * Type-checks rule bodies against their `# METADATA` `schemas` annotations, as `opa check` and `opa test` do.
   * Without it they are applied only when a module calls rego.metadata.rule() or chain(), as OPA's rego
   * package (the server, the oracle) parses annotations only then.
   */
  typeCheckAnnotations?: boolean;
}

export interface CompiledModules {
  root: RuleNode;
  modules: Module[];
  rules: PreparedRule[];
  gen: VarGen;
  builtins: BuiltinRegistry;
}

function throwIfErrors(errors: PolicyError[]): void {
  if (errors.length === 0) return;
  errors.sort((a, b) => {
    const la = a.location;
    const lb = b.location;
    if (la === undefined || lb === undefined) return 0;
    return la.file < lb.file ? -1 : la.file > lb.file ? 1 : la.row - lb.row || la.col - lb.col;
  });
  throw combineErrors(errors);
}

function requiresEval(t: Term): boolean {
  switch (t.type) {
    case 'ref':
    case 'call':
    case 'arraycomp':
    case 'setcomp':
    case 'objectcomp':
      return true;
    case 'array':
    case 'set':
      return t.items.some(requiresEval);
    case 'object':
      return t.entries.some(([k, v]) => requiresEval(k) || requiresEval(v));
    default:
      return false;
  }
}

function genEq(lhs: Term, rhs: Term): Expr {
  return { kind: 'call', op: opRef('eq', rhs.loc), args: [lhs, rhs], negated: false, with: [], loc: rhs.loc, generated: true };
}

export class Compiler {
  readonly gen = new VarGen();
  root: RuleNode | undefined;
  /** The compiled rules' types, which a query is checked against. */
  private ruleTypes: RuleTypes | undefined;

  constructor(
    readonly builtins: BuiltinRegistry,
    private readonly options: CompilerOptions = {},
  ) {}

  /** The global input schema's type (the root of the schema set), as OPA's compiler loads it in `init`. */
  private inputType(errors: PolicyError[]): RegoType | undefined {
    const root = this.options.schemas?.get(schemaKey([]));
    if (root === undefined) return undefined;
    try {
      return schemaType(root);
    } catch (e) {
      if (!(e instanceof SchemaTypeError)) throw e;
      errors.push(new PolicyError({ code: 'rego_type_error', detail: e.message }));
      return undefined;
    }
  }

  compileModules(sources: ModuleSource[]): CompiledModules {
    const errors: PolicyError[] = [];
    const modules: Module[] = [];
    for (const s of sources) {
      try {
        modules.push(parseModule(s.source, s.file, s.regoVersion));
      } catch (e) {
        if (PolicyError.isInstance(e)) errors.push(e);
        else throw e;
      }
    }
    throwIfErrors(errors);
    sources.forEach((s, i) => {
      if (s.regoVersion !== 0) checkRootDocumentOverrides(modules[i] as Module, errors);
    });
    throwIfErrors(errors);
    const inputType = this.inputType(errors);
    throwIfErrors(errors);
    const sourceTexts = new Map(sources.map((s) => [s.file, s.source]));
    const metadataCalled = rewriteMetadataCalls(modules, sourceTexts);
    // As OPA: annotations are read when the loader asks (`opa check`, `opa test`) or when a module calls
    // rego.metadata.rule()/chain() (its ParseMetadataBlocks stage); read, their schemas type the rules.
    const placed = this.options.typeCheckAnnotations === true || metadataCalled ? placeAnnotations(modules, sourceTexts, errors) : undefined;
    throwIfErrors(errors);
    resolveModules(modules);

    const rules: Rule[] = modules.flatMap((m) => m.rules);
    const locals = new LocalRewriter(this.gen);
    for (const r of rules) locals.rewriteRule(r);
    throwIfErrors(locals.errors);

    for (const r of rules) {
      const expander = new Expander(this.gen, r.module.notKeyword);
      for (let b: Rule | undefined = r; b !== undefined; b = b.else) {
        b.body = expander.body(rewritePrint(b.body, this.gen));
        const h = b.head;
        if (h.value !== undefined) h.value = printInTerm(h.value, this.gen);
        if (h.key !== undefined) h.key = printInTerm(h.key, this.gen);
        this.moveHeadTerms(b);
      }
    }

    const root = buildRuleTree(rules, modules, errors);
    this.root = root;
    throwIfErrors(errors);

    for (const r of rules) {
      for (let b: Rule | undefined = r; b !== undefined; b = b.else) b.body = this.rewriteWiths(b.body, errors);
    }
    throwIfErrors(errors);

    for (const r of rules) {
      for (let b: Rule | undefined = r; b !== undefined; b = b.else) checkCalls(b.body, { root, builtins: this.builtins, errors });
    }
    throwIfErrors(errors);

    const checker = this.safetyChecker(root);
    for (const r of rules) {
      for (let b: Rule | undefined = r; b !== undefined; b = b.else) {
        const globals = new Set(['data', 'input']);
        for (const a of b.head.args ?? []) termVars(a, globals);
        const res = checker.check(b.body, globals);
        errors.push(...res.errors);
        b.body = res.body;
        const safe = new Set(globals);
        for (const e of b.body) termVarsOfExpr(e, safe);
        const headTerms = [...b.head.ref.slice(1), ...(b.head.key ? [b.head.key] : []), ...(b.head.value ? [b.head.value] : [])];
        for (const t of headTerms) checker.headSafety(t, safe, errors);
      }
    }
    throwIfErrors(errors);

    for (const r of rules) {
      for (let b: Rule | undefined = r; b !== undefined; b = b.else) {
        b.body = rewriteDynamics(b.body, this.gen);
      }
    }
    checkRecursion(root, errors);
    throwIfErrors(errors);
    const schemaEnvs = placed === undefined ? undefined : ruleSchemaEnvs({ modules, placed, set: this.options.schemas, inputType, errors });
    this.ruleTypes = new RuleTypes(root, { ...(inputType === undefined ? {} : { inputType }), ...(schemaEnvs === undefined ? {} : { schemaEnvs }) });
    checkTypes(rules, this.ruleTypes, errors, this.gen);
    throwIfErrors(errors);

    const prepared: PreparedRule[] = [];
    for (const n of root.ruleNodes()) prepared.push(...n.rules, ...n.defaults);
    return { root, modules, rules: prepared, gen: this.gen, builtins: this.builtins };
  }

  /** Compiles a query body against the compiled modules' rule tree. */
  compileQuery(body: Body): Body {
    const root = this.root;
    const ruleTypes = this.ruleTypes;
    if (root === undefined || ruleTypes === undefined) throw new Error('compileModules must run first');
    const errors: PolicyError[] = [];
    const locals = new LocalRewriter(this.gen);
    let b = locals.rewriteQuery(resolveQuery(body));
    throwIfErrors(locals.errors);
    b = new Expander(this.gen, false).body(rewritePrint(b, this.gen));
    b = this.rewriteWiths(b, errors);
    checkCalls(b, { root, builtins: this.builtins, errors, rules: ruleTypes });
    throwIfErrors(errors);
    const res = this.safetyChecker(root).check(b, new Set(['data', 'input']));
    throwIfErrors(res.errors);
    checkQueryTypes(rewriteDynamics(res.body, this.gen, { keepEqual: true }), ruleTypes, errors, this.gen);
    throwIfErrors(errors);
    return rewriteDynamics(res.body, this.gen);
  }

  private safetyChecker(root: RuleNode): SafetyChecker {
    return new SafetyChecker(
      (op) => {
        const fn = functionNode(root, op);
        if (fn !== undefined) return (fn.rules[0] ?? fn.defaults[0])?.rule.head.args?.length ?? -1;
        const name = refName(op);
        const def = name === undefined ? undefined : this.builtins.resolve(name);
        return def === undefined ? -1 : def.args.length;
      },
      (name) => this.gen.isGenerated(name),
      (name) => this.gen.original.get(name) ?? name,
    );
  }

  /** Moves refs, calls and comprehensions in a rule head into the body (OPA's RewriteRefsInHead). */
  private moveHeadTerms(rule: Rule): void {
    const h = rule.head;
    const move = (t: Term): Term => {
      if (!requiresEval(t)) return t;
      const v = mkVar(this.gen.temp(), t.loc);
      const expander = new Expander(this.gen, false);
      const [extras, rewritten] = expander.term(t);
      rule.body.push(...extras, genEq(v, rewritten));
      return v;
    };
    if (h.args !== undefined) {
      h.args = h.args.map((a) => {
        if (!requiresEval(a)) return a;
        const [extras, out] = new Expander(this.gen, false).term(a);
        rule.body.push(...extras);
        return out;
      });
    }
    h.ref = [h.ref[0] as Term, ...h.ref.slice(1).map(move)];
    if (h.key !== undefined) h.key = move(h.key);
    if (h.value !== undefined) h.value = move(h.value);
  }

  /** Validates `with` targets and binds evaluated `with` values to vars first (OPA's RewriteWithValues). */
  private rewriteWiths(body: Body, errors: PolicyError[]): Body {
    const out: Body = [];
    for (const e of body) {
      if (e.kind === 'every' || e.kind === 'notbody') e.body = this.rewriteWiths(e.body, errors);
      if (e.with.length === 0) {
        out.push(e);
        continue;
      }
      const withs: With[] = [];
      for (const w of e.with) {
        const kind = this.withTargetKind(w, errors);
        if (kind === undefined) continue;
        let value = w.value;
        if (kind === 'function' && value.type === 'var' && this.builtins.resolve(value.name) !== undefined)
          value = { type: 'ref', terms: [value], loc: value.loc };
        // A function as the value: kept as the ref for a function target, and, as OPA keeps it, for a data target
        // (`with data.q as f` compiles; `data.q` is then undefined under it). Anywhere else OPA refuses it as a value.
        const isFuncValue =
          (kind === 'function' && this.isFunctionRef(value)) ||
          (kind === 'data' && value.type === 'ref' && functionNode(this.root as RuleNode, value) !== undefined);
        if (!isFuncValue && requiresEval(value)) {
          const v = mkVar(this.gen.temp(), value.loc);
          out.push(genEq(v, value));
          value = v;
        }
        withs.push({ ...w, value });
      }
      out.push({ ...e, with: withs });
    }
    return out;
  }

  private isFunctionRef(t: Term): boolean {
    if (t.type === 'var') return this.builtins.resolve(t.name) !== undefined;
    if (t.type !== 'ref') return false;
    const root = this.root as RuleNode;
    if (functionNode(root, t) !== undefined) return true;
    const name = refName(t);
    return name !== undefined && this.builtins.resolve(name) !== undefined;
  }

  private withTargetKind(w: With, errors: PolicyError[]): 'input' | 'data' | 'function' | undefined {
    const t = w.target;
    const root = this.root as RuleNode;
    const err = (detail: string, code: 'rego_type_error' | 'rego_compile_error' = 'rego_type_error') => {
      errors.push(new PolicyError({ code, detail, location: t.loc }));
      return undefined;
    };
    if (t.type === 'var') {
      if (this.builtins.resolve(t.name) !== undefined) return this.checkBuiltinTarget(t.name, w, errors);
      return err('with keyword target must reference existing input, data, or a function');
    }
    if (t.type !== 'ref') return err('with keyword target must reference existing input, data, or a function');
    const head = t.terms[0] as Term;
    if (head.type === 'var' && head.name === 'input') return 'input';
    if (head.type === 'var' && head.name === 'data') {
      const p = dataRefPrefix(t) as { path: Value[]; rest: boolean };
      // As OPA: the walk down the rule tree stops at the first var (`data.p[x]`); such a target is evaluated as a
      // data path and fails there ("bad document path").
      const last = t.terms.length - 2;
      let node: RuleNode | undefined = root;
      for (let i = 0; i < Math.min(p.path.length, last) && node !== undefined; i++) {
        node = node.child(p.path[i] as Value);
        if (node !== undefined && node.hasRules) return err('with keyword cannot partially replace virtual document(s)', 'rego_compile_error');
      }
      if (p.rest) return 'data';
      const target = root.find(p.path);
      if (target !== undefined && target.isFunction) return 'function';
      return 'data';
    }
    const name = refName(t);
    if (name !== undefined && this.builtins.resolve(name) !== undefined) return this.checkBuiltinTarget(name, w, errors);
    return err('with keyword target must reference existing input, data, or a function');
  }

  private checkBuiltinTarget(name: string, w: With, errors: PolicyError[]): 'function' | undefined {
    const def = this.builtins.resolve(name);
    const fail = (detail: string) => {
      errors.push(new PolicyError({ code: 'rego_compile_error', detail, location: w.target.loc }));
      return undefined;
    };
    if (name === 'eq' || name === 'assign') return fail(`with keyword replacing built-in function: replacement of "${name}" invalid`);
    if (name.startsWith('internal.')) return fail(`with keyword replacing built-in function: replacement of internal function "${name}" invalid`);
    if (def?.relation) return fail('with keyword replacing built-in function: target must not be a relation');
    if (def?.result === undefined) return fail('with keyword replacing built-in function: target must not be a void function');
    return 'function';
  }
}

function termVarsOfExpr(e: Expr, out: Set<string>): void {
  switch (e.kind) {
    case 'term':
      termVars(e.term, out, { skipClosures: true });
      break;
    case 'call':
      for (const a of e.args) termVars(a, out, { skipClosures: true });
      break;
    case 'every':
      termVars(e.domain, out, { skipClosures: true });
      break;
    default:
      break;
  }
}

export { isConstantTerm };
