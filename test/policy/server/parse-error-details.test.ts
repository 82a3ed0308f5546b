import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPolicyServer, type RunningPolicyServer } from '../../../runtime/policy/server/start-policy-server.js';
import { askOracle, oracleDir } from '../differential/differ.js';

// The JSON errors `policy serve` answers for Rego that does not parse (PUT /v1/policies/{id}, POST /v1/query), compared
// with OPA v1.20.2's. OPA answers `{code, message, errors: [{code, message, location: {file, row, col}, details: {line,
// idx}}]}`, where `details` (its parser's ParserErrorDetail) is the source line holding the offending byte and that byte's
// index in it; its error text prints the same line without leading tabs and a caret under the byte. The oracle (the pylib)
// gives the text only, so the expected JSON is rebuilt from it: a module named "" gets `row:col` in its text (OPA prints
// `file:row` when there is a file), the line is the source line whose tab-trimmed text OPA printed, and `idx` is the
// caret's column plus that line's leading tabs.

interface AstError {
  code: string;
  message: string;
  location?: { file: string; row: number; col: number };
  details?: { line: string; idx: number };
}

const MODULES: string[] = [
  'package p\n\n\tallow if { x := [1, 2 }\n',
  'package p\n\nallow if {\n\tx := [1, 2\n\n',
  'package p\nq := 1 +\nr := {\n',
  'package p\n\nmsg := "ünïcödé" + {\n',
  'package p\n\n\t\tf(x) := y if { y := x ++ 1 }\n',
  'package p\n\np contains x if { x := 1 ; y := }\n',
  'package p\n\nallow { true }\n',
  'package p\n\nimport input.x.\n',
  'package p\n\nq := "unterminated\n',
  'package p\n\nq := "😀😀" + }\n',
  '# 😀 comment\npackage p\n\nq := 1 +\n',
  'package p\n\ndefault q := input.x\n',
  'package p\n\nq if { 1 = 1 } else = {\n',
  'package p\n\tr := 1\n\t\t["a"]\n',
];

const QUERIES: string[] = ['x := "😀" ]', 'x := ', 'x := [1,\n\t 2 }', 'x := "é" +', 'data.p[', 'x := {1 2}', 'a := 1; b := ', 'y := 1 +\n\n'];

/** The JSON OPA answers for the error text it printed (`N error(s) occurred: ` and one error a line, each followed by its tab-indented detail lines). */
function expectedErrors(text: string, source: string, file: string): AstError[] {
  const body = text.replace(/^\d+ errors? occurred:\s?/, '');
  const lines = source.split('\n');
  return body
    .split(/\n(?!\t)/)
    .filter((e) => e !== '')
    .map((e) => {
      const [head, ...rest] = e.split('\n\t');
      const m = /^(?:(\d+):(\d+): )?([a-z_]+): ([\s\S]*)$/.exec(head ?? '');
      if (!m) throw new Error(`unreadable OPA error: ${JSON.stringify(e)}`);
      const out: AstError = { code: m[3]!, message: m[4]! };
      if (m[1] !== undefined) out.location = { file, row: Number(m[1]), col: Number(m[2]) };
      if (rest.length === 2) {
        const [shown, caret] = rest as [string, string];
        const candidates = lines.filter((l) => l.replace(/^\t+/, '') === shown);
        if (candidates.length !== 1) throw new Error(`the line OPA printed is not one line of the source: ${JSON.stringify(shown)}`);
        const line = candidates[0]!;
        out.details = { line, idx: caret.length - 1 + (line.length - line.replace(/^\t+/, '').length) };
      }
      return out;
    });
}

function oracleError(envelope: string): string {
  const error = (JSON.parse(envelope) as { error?: { message: string } }).error;
  if (error === undefined) throw new Error(`OPA accepted what was meant to be broken: ${envelope}`);
  return error.message;
}

let dir: string;
let server: RunningPolicyServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fw-parse-error-details-'));
  writeFileSync(join(dir, 'p.rego'), 'package p\n\nq := 1\n');
  server = await startPolicyServer({ dir, port: 0, watch: false, allowWrites: true });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const pylib = oracleDir();

describe.skipIf(pylib === undefined)('parse errors over the REST API, as OPA v1.20.2 answers them (set FRAMEWORK_OPA_PYLIB)', () => {
  it('PUT /v1/policies/{id}: every error with its location and details', async () => {
    const answers = askOracle(
      MODULES.map((source) => ({ modules: [['', source] as const], evals: [{ query: 'x = 1', input: null }] })),
      pylib!,
    );
    const wrong: string[] = [];
    for (const [i, source] of MODULES.entries()) {
      const id = `broken${i}.rego`;
      const response = await fetch(`${server.url}/v1/policies/${id}`, { method: 'PUT', body: source });
      const json = (await response.json()) as { code: string; message: string; errors: AstError[] };
      const expected = {
        code: 'invalid_parameter',
        message: 'error(s) occurred while compiling module(s)',
        errors: expectedErrors(oracleError(answers[i]!), source, id),
      };
      if (response.status !== 400 || JSON.stringify(json) !== JSON.stringify(expected))
        wrong.push(`${JSON.stringify(source)}\n  ours ${response.status} ${JSON.stringify(json)}\n  OPA  400 ${JSON.stringify(expected)}`);
    }
    expect(wrong.join('\n')).toBe('');
  });

  it('POST /v1/query: parse errors as OPA words them, with details', async () => {
    const answers = askOracle([{ modules: [], evals: QUERIES.map((query) => ({ query, input: null })) }], pylib!);
    const wrong: string[] = [];
    for (const [i, query] of QUERIES.entries()) {
      const response = await fetch(`${server.url}/v1/query`, { method: 'POST', body: JSON.stringify({ query }) });
      const json = (await response.json()) as { code: string; message: string; errors: AstError[] };
      const expected = {
        code: 'invalid_parameter',
        message: 'error(s) occurred while parsing query',
        errors: expectedErrors(oracleError(answers[i]!), query, ''),
      };
      if (response.status !== 400 || JSON.stringify(json) !== JSON.stringify(expected))
        wrong.push(`${JSON.stringify(query)}\n  ours ${response.status} ${JSON.stringify(json)}\n  OPA  400 ${JSON.stringify(expected)}`);
    }
    expect(wrong.join('\n')).toBe('');
  });

  it('POST /v1/query: a query that parses but does not compile is OPA’s compile error, without details', async () => {
    const query = 'x := data.nope.f(1)';
    const [answer] = askOracle([{ modules: [], evals: [{ query, input: null }] }], pylib!);
    const response = await fetch(`${server.url}/v1/query`, { method: 'POST', body: JSON.stringify({ query }) });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      code: 'invalid_parameter',
      message: 'error(s) occurred while compiling query',
      errors: expectedErrors(oracleError(answer!), query, ''),
    });
  });
});
