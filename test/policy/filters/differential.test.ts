/**
 * Data filtering against real OPA v1.20.2: for every policy of the corpus,
 * every input and every target/dialect, our filter must equal OPA's (SQL
 * text, UCAST object, masks, or the error message), and both engines'
 * SQLite clauses must select the same rows of the same table.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { stringifyJson } from '../../../runtime/core/json-text.js';
import { compilePolicy } from '../../../runtime/policy/engine.js';
import { FilterCompiler, FilterErrors, type FilterTarget } from '../../../runtime/policy/filters/compile-filters.js';
import { PartialError } from '../../../runtime/policy/partial/partial-eval.js';
import { fromJS } from '../../../runtime/policy/value-json.js';
import { CASES, FRUITS, TARGETS } from './corpus.js';

const here = dirname(fileURLToPath(import.meta.url));
const pylib = process.env.FRAMEWORK_OPA_PYLIB;
const ready = pylib !== undefined && existsSync(join(pylib, 'opa_bindings'));

type Answer = { query?: unknown; masks?: unknown } | { error: string };

/** The parts of `a OR b OR c` at the top level (outside parentheses and quotes). */
function topLevelOr(sql: string): string[] {
  const inner = sql.startsWith('WHERE (') && sql.endsWith(')') ? sql.slice(7, -1) : undefined;
  if (inner === undefined) return [sql];
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === "'") quoted = false;
    } else if (c === "'") quoted = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && inner.startsWith(' OR ', i)) {
      parts.push(inner.slice(start, i));
      start = i + 4;
    }
    if (depth < 0) return [sql];
  }
  parts.push(inner.slice(start));
  return parts.length > 1 ? parts.sort() : [sql];
}

/**
 * OPA does not define the order of a residual's alternatives (nor so of the
 * errors found in them): those are compared as sets. Everything else, the
 * order of conditions inside an alternative included, is compared exactly.
 */
function normalised(a: Answer | undefined): unknown {
  if (a === undefined) return a;
  if ('error' in a) {
    const [head, ...rest] = a.error.split('\n');
    const entries: string[] = [];
    for (const line of rest) {
      if (line.startsWith('\t') && entries.length > 0) entries[entries.length - 1] += `\n${line}`;
      else entries.push(line);
    }
    return { error: [head, ...entries.sort()] };
  }
  const q = a.query;
  if (typeof q === 'string') return { ...a, query: topLevelOr(q) };
  if (typeof q === 'object' && q !== null && (q as { operator?: string }).operator === 'or' && (q as { type?: string }).type === 'compound') {
    return { ...a, query: { ...q, value: (q as { value: unknown[] }).value.map((x) => JSON.stringify(x)).sort() } };
  }
  return a;
}

function ours(policy: string, input: unknown, c: (typeof CASES)[number], target: string, dialect: string): Answer {
  const modules = [{ file: 'filters.rego', source: policy }];
  const fc = new FilterCompiler(modules, compilePolicy({ modules }), undefined);
  try {
    const [f] = fc.compile({
      query: 'data.filters.include',
      input: fromJS(input),
      targets: [{ target, dialect } as FilterTarget],
      ...(c.unknowns === undefined ? { unknowns: ['input.fruits'] } : { unknowns: c.unknowns }),
      ...(c.mappings ? { mappings: c.mappings } : {}),
      ...(c.maskRule ? { maskRule: c.maskRule } : {}),
    });
    // Numbers travel as their text (JsonNumber): compare the JSON OPA's clients read.
    return JSON.parse(stringifyJson({ query: f?.query ?? null, masks: f?.masks ?? null })) as Answer;
  } catch (e) {
    if (e instanceof FilterErrors || e instanceof PartialError) return { error: e.message };
    throw new Error(`${c.name} ${target}/${dialect}: ${(e as Error).message}`, { cause: e });
  }
}

describe.skipIf(!ready)('data filtering matches OPA v1.20.2', () => {
  const cases = CASES.flatMap((c) => c.inputs.map((input, i) => ({ c, input, label: `${c.name} #${i + 1}` })));
  const mine = cases.map(({ c, input }) => Object.fromEntries(TARGETS.map(([t, d]) => [`${t}/${d}`, ours(c.policy, input, c, t, d)])));
  const request = {
    cases: cases.map(({ c, input }, i) => {
      const sqlite = mine[i]?.['sql/sqlite'];
      return {
        modules: [['filters.rego', c.policy]],
        query: 'data.filters.include',
        input,
        unknowns: c.unknowns ?? ['input.fruits'],
        targets: TARGETS.map(([t, d]) => [t, d === 'minimal' ? '' : d]),
        mappings: c.mappings ?? null,
        mask_rule: c.maskRule ?? null,
        table: c.table ?? FRUITS,
        ours_sqlite: sqlite !== undefined && !('error' in sqlite) ? sqlite.query : null,
      };
    }),
  };
  const proc = spawnSync(process.env.FRAMEWORK_OPA_PYTHON ?? 'python3', [join(here, 'opa_filters_oracle.py'), pylib ?? ''], {
    input: JSON.stringify(request),
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const opa = proc.status === 0 ? (JSON.parse(proc.stdout) as Array<{ results: Record<string, Answer>; rows_opa: unknown; rows_ours: unknown }>) : [];

  it('the oracle ran', () => {
    expect(proc.stderr).toBe('');
    expect(opa).toHaveLength(cases.length);
  });

  cases.forEach(({ label }, i) => {
    it(label, () => {
      const theirs = opa[i];
      expect(theirs).toBeDefined();
      for (const [t, d] of TARGETS) {
        const key = `${t}/${d}`;
        expect({ key, answer: normalised(mine[i]?.[key]) }).toEqual({ key, answer: normalised(theirs?.results[d === 'minimal' ? `${t}/` : key]) });
      }
      expect(theirs?.rows_ours).toEqual(theirs?.rows_opa);
      // A clause SQLite cannot run would make "same rows" vacuous.
      expect(theirs?.rows_opa ?? []).not.toHaveProperty('sqlite_error');
    });
  });

  it('selects rows for most inputs (the corpus is not vacuous)', () => {
    const nonEmpty = opa.filter((o) => Array.isArray(o.rows_opa) && o.rows_opa.length > 0 && o.rows_opa.length < FRUITS.rows.length);
    expect(nonEmpty.length).toBeGreaterThanOrEqual(8);
  });
});
