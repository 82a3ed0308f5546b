/**
 * Data filtering as OPA v1's `/v1/compile/{path}` does it: partially
 * evaluate the rule at `path` with the table columns unknown, check the
 * residual against what the targets express, and translate it into SQL
 * `WHERE` clauses or UCAST conditions; the unknowns and the column-mask
 * rule come from the request or from the rule's `# METADATA`
 * (`custom.unknowns`, `custom.mask_rule`).
 */
import type { ModuleSource } from '../compiler/compile.js';
import { metadataBlocks } from '../compiler/metadata.js';
import { type CompiledPolicy } from '../engine.js';
import { parseModule, parseQuery } from '../parser.js';
import type { Body } from '../ast.js';
import { dataRef, parseUnknown, PartialError, PartialEvaluator, type PartialResult } from '../partial/partial-eval.js';
import { toJS } from '../value-json.js';
import { RegoObject, type Value } from '../value.js';
import { checkResidual } from './checks.js';
import { type Constraint, constraintFor } from './constraints.js';
import { ucastToSql } from './sql.js';
import { type Mappings, mappingsFor, queriesToUcast, shortsOf } from './ucast.js';

export interface FilterTarget {
  target: 'sql' | 'ucast';
  dialect: string;
}

export interface CompileFiltersRequest {
  /** The rule's data path, e.g. `["filters", "include"]` (how `/v1/compile/{path}` names it). */
  path?: string[];
  /** Or the rule as a query, `data.filters.include` (errors then point into it, as OPA's do). */
  query?: string;
  input?: Value;
  /** Refs such as `input.fruits`; when absent, the rule's `custom.unknowns` annotation (else `input`). */
  unknowns?: string[];
  targets: FilterTarget[];
  mappings?: Mappings;
  /** `data.filters.masks` or a name relative to the rule's package. */
  maskRule?: string;
}

/** One target's answer: `query` is null when no row may pass, `""` / `{}` when every row may. */
export interface Filter {
  query: string | Record<string, unknown> | null;
  masks?: Record<string, unknown>;
}

/** The policies a compile request runs against (built once per policy set). */
export class FilterCompiler {
  private readonly pe: PartialEvaluator;

  constructor(
    private readonly modules: readonly ModuleSource[],
    private readonly policy: CompiledPolicy,
    data: unknown,
    /** Milliseconds one request may spend evaluating known parts (and the mask rule). */
    private readonly budgetMs = 5000,
  ) {
    this.pe = new PartialEvaluator({ modules: [...modules], data, budgetMs });
  }

  /** The residual of a query with the support modules it refers to (Rego AST for `/v1/compile` answers). */
  partial(query: string, input: Value | undefined, unknowns: readonly string[], disableInlining: readonly string[] = []): PartialResult {
    const disabled = disableInlining.map((d) => {
      const path = parseUnknown(d);
      if (path[0] !== 'data') throw new PartialError('invalid_parameter', `disableInlining paths must start with data: ${d}`, undefined);
      return path.slice(1);
    });
    return this.pe.partialWithSupport(query, input, (unknowns.length === 0 ? ['input'] : unknowns).map(parseUnknown), disabled);
  }

  compile(req: CompileFiltersRequest): Filter[] {
    const constraints: Constraint[] = req.targets.map((t) => constraintFor(t.target, t.dialect));
    const { path, body } = queryOf(req);
    const annotations = this.annotations(path);
    const unknownTexts = req.unknowns !== undefined && req.unknowns.length > 0 ? req.unknowns : annotations.unknowns;
    const maskRule = req.maskRule ?? annotations.maskRule;
    const masks = maskRule === undefined ? undefined : this.masks(maskRule, path, req.input);
    const unknowns = (unknownTexts.length === 0 ? ['input'] : unknownTexts).map(parseUnknown);
    const queries = this.pe.partial(body, req.input, unknowns);
    const errors = checkResidual(queries, constraints, shortsOf(req.mappings));
    if (errors.length > 0) throw new FilterErrors(errors);
    return req.targets.map((t) => {
      if (queries.length === 0) return { query: null };
      const ucast = queriesToUcast(queries, mappingsFor(req.mappings, t.target, t.dialect));
      const query = t.target === 'ucast' ? ((ucast as Record<string, unknown> | undefined) ?? {}) : ucastToSql(ucast, t.dialect);
      return masks === undefined ? { query } : { query, masks };
    });
  }

  /** The mask rule's value for this input (an object of table → column → mask), evaluated in full. */
  private masks(rule: string, path: readonly string[], input: Value | undefined): Record<string, unknown> | undefined {
    const full = rule.startsWith('data.') ? rule : `data.${[...path.slice(0, -1), rule].join('.')}`;
    const segments = full.slice('data.'.length).split('.');
    if (segments.some((s) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(s)))
      throw new PartialError('invalid_mask_rule', `mask_rule was not a valid ref: ${rule}`, undefined);
    const v = this.policy.evaluate(segments, undefined, { budgetMs: this.budgetMs, ...(input === undefined ? {} : { inputValue: input }) });
    if (v === undefined) return undefined;
    return v instanceof RegoObject ? (toJS(v) as Record<string, unknown>) : undefined;
  }

  /** `custom.unknowns` (all of them, rule to package) and the nearest `custom.mask_rule` of the rule at `path`. */
  private annotations(path: readonly string[]): { unknowns: string[]; maskRule: string | undefined } {
    const unknowns: string[] = [];
    let maskRule: string | undefined;
    const name = `data.${path.join('.')}`;
    for (const src of this.modules) {
      if (!src.source.includes('# METADATA')) continue;
      let mod;
      try {
        mod = parseModule(src.source, src.file);
      } catch {
        continue;
      }
      const pkg = mod.package.path.terms.slice(1).map((t) => (t.type === 'string' ? t.value : '?'));
      const rules = mod.rules.filter(
        (r) => [`data.${pkg.join('.')}`, ...r.head.ref.map((t) => (t.type === 'var' ? t.name : t.type === 'string' ? t.value : '?'))].join('.') === name,
      );
      const blocks = metadataBlocks(src.source, src.file);
      const lines = src.source.split(/\r?\n/);
      const attached = (row: number): number => {
        let r = row;
        while (r <= lines.length && (lines[r - 1] ?? '').trim() === '') r++;
        return r;
      };
      const ruleRows = new Set(rules.map((r) => r.loc.row));
      const chain = [
        ...blocks.filter((b) => ruleRows.has(attached(b.nextRow))),
        ...(rules.length > 0 ? blocks.filter((b) => attached(b.nextRow) === mod.package.loc.row) : []),
      ];
      for (const b of chain) {
        const custom = b.doc['custom'];
        if (typeof custom !== 'object' || custom === null) continue;
        const c = custom as Record<string, unknown>;
        const loc = { file: src.file, row: b.row, col: 1 };
        if (Array.isArray(c['unknowns'])) {
          for (const u of c['unknowns']) {
            if (typeof u !== 'string') continue;
            try {
              parseUnknown(u);
            } catch (e) {
              if (e instanceof PartialError) throw new FilterErrors([new PartialError(e.code, e.detail, loc)]);
              throw e;
            }
            unknowns.push(u);
          }
        }
        if (maskRule === undefined && c['mask_rule'] !== undefined) {
          if (typeof c['mask_rule'] !== 'string')
            throw new FilterErrors([new PartialError('invalid_mask_rule', `mask_rule must be a valid ref string: ${JSON.stringify(c['mask_rule'])}`, loc)]);
          maskRule = c['mask_rule'];
        }
      }
    }
    return { unknowns, maskRule };
  }
}

const NOWHERE = { file: '', row: 0, col: 0 };

/** The rule's path and the one-expression query naming it. */
function queryOf(req: CompileFiltersRequest): { path: string[]; body: Body } {
  if (req.query !== undefined) {
    const body = parseQuery(req.query, '');
    const e = body[0];
    const ref = body.length === 1 && e?.kind === 'term' && !e.negated && e.term.type === 'ref' ? e.term : undefined;
    const path = ref?.terms.slice(1).map((t) => (t.type === 'string' ? t.value : undefined));
    if (ref === undefined || ref.terms[0]?.type !== 'var' || ref.terms[0].name !== 'data' || path === undefined || path.some((p) => p === undefined)) {
      throw new PartialError('invalid_parameter', `the query must name a rule, such as data.filters.include: ${req.query}`, undefined);
    }
    return { path: path as string[], body };
  }
  const path = req.path ?? [];
  if (path.length === 0) throw new PartialError('invalid_parameter', "missing required 'path' parameter", undefined);
  return { path, body: [{ kind: 'term', term: dataRef(path, NOWHERE), negated: false, with: [], loc: NOWHERE }] };
}

/** The residual cannot be a filter for these targets (or an annotation is wrong): OPA's list of AST errors. */
export class FilterErrors extends Error {
  constructor(readonly errors: PartialError[]) {
    // Go's ast.Errors text, so messages compare with OPA's.
    super(errors.length === 1 ? `1 error occurred: ${errors[0]?.message}` : `${errors.length} errors occurred:\n${errors.map((e) => e.message).join('\n')}`);
    this.name = 'FilterErrors';
  }
}

/** `application/vnd.opa.sql.postgresql+json` → sql/postgresql; undefined for other types. */
export function targetOfMediaType(accept: string): FilterTarget | 'multi' | 'plain' | undefined {
  if (accept === 'application/json') return 'plain';
  if (accept === 'application/vnd.opa.multitarget+json') return 'multi';
  const m = /^application\/vnd\.opa\.(sql|ucast)\.([a-z]+)\+json$/.exec(accept);
  if (m === null) return undefined;
  const target = m[1] as 'sql' | 'ucast';
  const dialect = m[2] as string;
  const known = target === 'sql' ? ['postgresql', 'mysql', 'sqlserver', 'sqlite'] : ['all', 'minimal', 'prisma', 'linq'];
  return known.includes(dialect) ? { target, dialect } : undefined;
}
