/**
 * OPA's own clients against `framework-cli policy serve` (a child process):
 * the TypeScript SDK's `getFilters` / `getMultipleFilters` (data filtering,
 * with the Prisma conversion the SDK does itself), and the Python client's
 * `compile_query` (partial evaluation answered as Rego AST). The expected
 * filters come from real OPA v1.20.2 for the same policy and input.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPAClient } from '@open-policy-agent/opa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/net.js';
import { startService, type Service } from '../../support/processes.js';

const here = dirname(fileURLToPath(import.meta.url));
const pylib = process.env.FRAMEWORK_OPA_PYLIB;
const oracleReady = pylib !== undefined && existsSync(join(pylib, 'opa_bindings'));
const clientPython = process.env.FRAMEWORK_OPA_CLIENT_PYTHON;

const POLICY = `package filters

# METADATA
# custom:
#   unknowns: [input.fruits]
#   mask_rule: masks
include if input.fruits.owner == input.user
include if {
  input.fruits.price < input.max
  not input.fruits.colour == "red"
}

masks := {"fruits": {"owner": {"replace": {"value": "***"}}}} if input.user != "admin"

# METADATA
# custom:
#   unknowns: [input.fruits]
matching if startswith(input.fruits.name, input.prefix)

default refused := false
refused if input.fruits.name == "apple"
`;
const INPUT = { user: 'bob', max: 5, prefix: 'b' };

/** OPA's filter for one target (unknowns given explicitly: the wheel does not read METADATA). */
function opaFilter(rule: string, target: string, dialect: string): { query: unknown; masks: unknown } {
  const request = {
    cases: [
      {
        modules: [['filters.rego', POLICY]],
        query: `data.filters.${rule}`,
        input: INPUT,
        unknowns: ['input.fruits'],
        targets: [[target, dialect]],
        mappings: null,
        mask_rule: 'data.filters.masks',
      },
    ],
  };
  const proc = spawnSync(process.env.FRAMEWORK_OPA_PYTHON ?? 'python3', [join(here, 'opa_filters_oracle.py'), pylib ?? ''], {
    input: JSON.stringify(request),
    encoding: 'utf8',
  });
  expect(proc.stderr).toBe('');
  return (JSON.parse(proc.stdout) as Array<{ results: Record<string, { query: unknown; masks: unknown }> }>)[0]?.results[`${target}/${dialect}`] as {
    query: unknown;
    masks: unknown;
  };
}

/** Top-level `OR` alternatives as a set (OPA does not define their order). */
function orSet(sql: unknown): unknown {
  return typeof sql === 'string' && sql.startsWith('WHERE (') ? sql.slice(7, -1).split(' OR ').sort() : sql;
}

let dir: string;
let service: Service;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fw-filters-sdk-'));
  writeFileSync(join(dir, 'filters.rego'), POLICY);
  const port = await freePort();
  service = await startService({ name: 'policy engine', args: ['policy', 'serve', dir, '--addr', `127.0.0.1:${port}`, '--no-watch'], port });
});
afterAll(async () => {
  await service?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!oracleReady)('the TypeScript SDK (@open-policy-agent/opa) filters through policy serve', () => {
  it('getFilters to PostgreSQL, unknowns and masks from METADATA, equals OPA', async () => {
    const opa = new OPAClient(service.url);
    const got = await opa.getFilters('filters/include', INPUT, { target: 'postgresql' });
    const want = opaFilter('include', 'sql', 'postgresql');
    expect(orSet(got.query)).toEqual(orSet(want.query));
    expect(got.masks).toEqual(want.masks);
  });

  it('getFilters to Prisma: the SDK converts our UCAST into a Prisma where clause and mask function', async () => {
    const opa = new OPAClient(service.url);
    const got = await opa.getFilters('filters/include', INPUT, 'fruits');
    expect(got.query).toEqual({ OR: expect.arrayContaining([{ owner: { equals: 'bob' } }]) });
    expect(JSON.stringify(got.query)).toContain('"price":{"lt":5}');
    const masked = (got as { mask: (o: Record<string, unknown>) => Record<string, unknown> }).mask({ owner: 'carol', price: 3 });
    expect(masked).toEqual({ owner: '***', price: 3 });
  });

  it('getMultipleFilters answers each target as OPA does', async () => {
    const opa = new OPAClient(service.url);
    const got = await opa.getMultipleFilters('filters/matching', INPUT, { targets: ['postgresql', 'mysql'] });
    // OPA answers `{"result": {"postgresql": ..., "mysql": ...}}`; the SDK hands back that map (its type says `targets`).
    const targets = got as unknown as Record<string, { query: unknown }>;
    expect(targets['postgresql']?.query).toEqual(opaFilter('matching', 'sql', 'postgresql').query);
    expect(targets['mysql']?.query).toEqual(opaFilter('matching', 'sql', 'mysql').query);
    // UCAST minimal has no `startswith`: the whole request is refused, as by OPA.
    await expect(opa.getMultipleFilters('filters/matching', INPUT, { targets: ['postgresql', 'ucastMinimal'] })).rejects.toThrow();
  });

  it('a policy a target cannot express is refused with OPA error shape', async () => {
    const response = await fetch(`${service.url}/v1/compile/filters/refused`, {
      method: 'POST',
      headers: { Accept: 'application/vnd.opa.sql.postgresql+json' },
      body: JSON.stringify({ input: INPUT, unknowns: ['input.fruits'] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      code: 'evaluation_error',
      message: 'error(s) occurred while evaluating query',
      errors: [{ code: 'pe_fragment_error', message: 'use of default rule in data.filters.refused' }],
    });
    expect(opaFilter('refused', 'sql', 'postgresql')).toEqual({
      error: '1 error occurred: 1:14: pe_fragment_error: use of default rule in data.filters.refused',
    });
  });

  it('a missing, doubled or unknown Accept header is a 400 naming it', async () => {
    const post = (accept?: string) =>
      fetch(`${service.url}/v1/compile/filters/include`, { method: 'POST', ...(accept === undefined ? {} : { headers: { Accept: accept } }), body: '{}' }).then(
        async (r) => ({ status: r.status, body: await r.json() }),
      );
    expect(await post('application/vnd.opa.sql.oracle+json')).toEqual({
      status: 400,
      body: { code: 'invalid_parameter', message: 'Accept header: unsupported header: application/vnd.opa.sql.oracle+json' },
    });
    expect(await post('application/vnd.opa.sql.mysql+json, application/json')).toEqual({
      status: 400,
      body: { code: 'invalid_parameter', message: 'Accept header: multiple headers not supported' },
    });
  });
});

describe.skipIf(clientPython === undefined)('the Python client (opa-python-client) compile_query through policy serve', () => {
  it('answers the residual queries as Rego AST', () => {
    const script = [
      'import json, sys',
      'from opa_client.opa import OpaClient',
      `c = OpaClient(host="127.0.0.1", port=${service?.port ?? 0})`,
      'print(json.dumps(c.compile_query("data.filters.include", {"user": "bob", "max": 5}, ["input.fruits"])))',
    ].join('\n');
    const proc = spawnSync(clientPython as string, ['-c', script], { encoding: 'utf8' });
    expect(proc.stderr).toBe('');
    const out = JSON.parse(proc.stdout) as { result: { queries: unknown[][] } };
    expect(out.result.queries).toHaveLength(2);
    const text = JSON.stringify(out.result.queries);
    expect(text).toContain('{"type":"string","value":"owner"}');
    expect(text).toContain('"negated":true');
  });
});
