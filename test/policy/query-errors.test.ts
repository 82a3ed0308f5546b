/**
 * Evaluation errors of ad-hoc queries worded as OPA v1.20.2 words them (issue 35), location label included: an
 * error raised by the query's own expression is labelled by that expression's source text (`1 / 0: eval_builtin_error:
 * div: divide by zero`), one raised inside a module's rule by `file:row`. 853 queries
 * (816 generated and 33 written out in `differential/corpus-query-errors.ts`) are compared word for word with a real OPA (FRAMEWORK_OPA_PYLIB).
 */
import { describe, expect, it } from 'vitest';
import { compilePolicy, type CompiledPolicy } from '../../runtime/policy/engine.js';
import { PolicyError } from '../../runtime/policy/errors.js';
import { parseJSON, stringifyJSON } from '../../runtime/policy/value-json.js';
import type { Value } from '../../runtime/policy/value.js';
import { QUERY_ERRORS_INPUT, QUERY_ERRORS_MODULE, queryErrorCases } from './differential/corpus-query-errors.js';
import { askOracle, oracleDir } from './differential/differ.js';

const pylib = oracleDir();

/** OPA's answer to each query: its error message, or the bindings as JSON. */
function opaAnswers(queries: readonly string[]): string[] {
  const group = { modules: [['p.rego', QUERY_ERRORS_MODULE] as const], evals: queries.map((query) => ({ query, input: QUERY_ERRORS_INPUT })) };
  return askOracle([group], pylib as string).map((l) => {
    const env = JSON.parse(l) as { error?: { message: string }; result?: Array<{ bindings: unknown }> | null };
    if (env.error !== undefined) return `error: ${env.error.message.replace(/^1 error occurred: /, '')}`;
    return (env.result ?? []).map((r) => stringifyJSON(parseJSON(JSON.stringify(r.bindings ?? {})))).join(' | ') || 'undefined';
  });
}

/**
 * Our conflict errors name the rule and list the conflicting values after OPA's text (docs/policy.md keeps that
 * difference); that addition is cut here so the rest is compared word for word.
 */
const withoutConflictDetail = (message: string): string => message.replace(/: (?:rule|function) data\.\S+ produced conflicting values[\s\S]*$/, '');

function ourAnswer(policy: CompiledPolicy, query: string): string {
  try {
    const rows = policy.query(query, { inputValue: parseJSON(QUERY_ERRORS_INPUT), strictBuiltinErrors: true });
    const text = (row: Record<string, Value>): string => `{${Object.entries(row).map(([k, v]) => `${JSON.stringify(k)}:${stringifyJSON(v)}`)}}`;
    return rows.map((r) => stringifyJSON(parseJSON(text(r)))).join(' | ') || 'undefined';
  } catch (e) {
    if (!PolicyError.isInstance(e)) throw e;
    return `error: ${withoutConflictDetail(e.message)}`;
  }
}

describe('evaluation errors of ad-hoc queries', () => {
  const policy = compilePolicy({ modules: [{ file: 'p.rego', source: QUERY_ERRORS_MODULE }] });

  it('labels an error of the query by the expression text, one of a rule by file:row', () => {
    expect(ourAnswer(policy, 'x := 1 / 0')).toBe('error: 1 / 0: eval_builtin_error: div: divide by zero');
    expect(ourAnswer(policy, 'x := data.p.r_div')).toBe('error: p.rego:3: eval_builtin_error: div: divide by zero');
  });

  it.skipIf(pylib === undefined)('words 853 query errors as OPA v1.20.2 does', () => {
    const queries = queryErrorCases();
    const theirs = opaAnswers(queries);
    const differ = queries.flatMap((q, i) => {
      const mine = ourAnswer(policy, q);
      return mine === theirs[i] ? [] : [`${JSON.stringify(q)}\n  OPA   ${theirs[i]}\n  ours  ${mine}`];
    });
    if (process.env.QUERY_ERRORS_MEASURE !== undefined) console.log(`${queries.length - differ.length} of ${queries.length} equal\n${differ.join('\n')}`);
    expect(differ).toEqual([]);
    expect(theirs.filter((a) => a.startsWith('error: ')).length).toBeGreaterThan(600);
  });

  // Strict builtin errors halt the evaluation where they happen, as in OPA: a conflict between later definitions must
  // not take the place of the first definition's error (we raised the conflict: the error was kept for the query's
  // end). Rules that never read `input` surface first in OPA, so their conflict comes before another rule's error.
  const HALTS: Array<[string, string]> = [
    ['f(x) := 1 if { upper(x) }\nf(x) := 2\nf(x) := 3\ny := f(1)', 'p.rego:3: eval_type_error: upper: operand 1 must be string but got number'],
    [
      'f(x) := 2\nf(x) := 3\nf(x) := 1 if { upper(x) }\ny := f(1)',
      'p.rego:4: eval_conflict_error: functions must not produce multiple outputs for same inputs',
    ],
    [
      'r := 1 if { upper(input.n) }\nr := 2 if { input.n == 1 }\nr := 3 if { input.n == 1 }',
      'p.rego:3: eval_type_error: upper: operand 1 must be string but got number',
    ],
    [
      'r := 1 if { x := input.n; upper(x) }\nr := 2 if { x := input.n }\nr := 3 if { x := input.n }',
      'p.rego:3: eval_type_error: upper: operand 1 must be string but got number',
    ],
    ['r := 1 if { upper(input.n) }\nr := 2\nr := 3', 'p.rego:5: eval_conflict_error: complete rules must not produce multiple outputs'],
    [
      'r := 1 if { upper(input.n) }\nr := 2 if { input.n == 1 }\nr := 3\nr := 4',
      'p.rego:6: eval_conflict_error: complete rules must not produce multiple outputs',
    ],
    [
      'q := 1\nr := 1 if { upper(input.n) }\nr := 2 if { q == 1 }\nr := 3 if { q == 1 }',
      'p.rego:6: eval_conflict_error: complete rules must not produce multiple outputs',
    ],
    ['s contains 1 if { upper(input.n) }\ns contains 2', 'p.rego:3: eval_type_error: upper: operand 1 must be string but got number'],
  ];
  const halting = (module: string): string => {
    const rule = /^(\w+)/.exec(module.split('\n').at(-1) ?? '')?.[1] ?? 'y';
    try {
      const p = compilePolicy({ modules: [{ file: 'p.rego', source: `package p\n\n${module}\n` }] });
      return stringifyJSON(p.query(`x = data.p.${rule}`, { inputValue: parseJSON('{"n": 1}'), strictBuiltinErrors: true })[0]?.x as Value);
    } catch (e) {
      if (!PolicyError.isInstance(e)) throw e;
      return withoutConflictDetail(e.message);
    }
  };
  it('halts at a strict builtin error before a later conflict', () => {
    expect(HALTS.map(([m]) => halting(m))).toEqual(HALTS.map(([, want]) => want));
  });
  it.skipIf(pylib === undefined)('halts where OPA v1.20.2 halts', () => {
    const rules = HALTS.map(([m]) => /^(\w+)/.exec(m.split('\n').at(-1) ?? '')?.[1] ?? 'y');
    const out = askOracle(
      HALTS.map(([m], i) => ({ modules: [['p.rego', `package p\n\n${m}\n`] as const], evals: [{ query: `x = data.p.${rules[i]}`, input: '{"n": 1}' }] })),
      pylib as string,
    ).map((l) => (JSON.parse(l) as { error?: { message: string } }).error?.message ?? l);
    expect(out).toEqual(HALTS.map(([, want]) => want));
  });
});
