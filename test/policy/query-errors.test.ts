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
});
