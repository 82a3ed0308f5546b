/** The builtin families evaluated through the Rego engine: results, undefined calls and strict errors. */
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../../runtime/policy/engine.js';
import { PolicyError } from '../../../runtime/policy/errors.js';
import { defaultRegistry } from '../../../runtime/policy/builtins/index.js';
import { cryptoBuiltins } from '../../../runtime/policy/builtins/crypto.js';
import { netBuiltins } from '../../../runtime/policy/builtins/net.js';
import { semverBuiltins } from '../../../runtime/policy/builtins/semver.js';
import { timeBuiltins } from '../../../runtime/policy/builtins/time.js';
import { unitsBuiltins } from '../../../runtime/policy/builtins/units.js';
import { uuidBuiltins } from '../../../runtime/policy/builtins/uuid.js';
import { toJS } from '../../../runtime/policy/value-json.js';

const builtins = defaultRegistry
  .clone()
  .registerAll([...timeBuiltins, ...cryptoBuiltins, ...netBuiltins, ...unitsBuiltins, ...semverBuiltins, ...uuidBuiltins]);

function evaluate(body: string, options: { input?: unknown; timeNs?: bigint; strict?: boolean } = {}): unknown {
  const policy = compilePolicy({ modules: { 'test.rego': `package test\n\n${body}\n` }, builtins });
  const rows = policy.query('data.test = x', {
    input: options.input,
    timeNs: options.timeNs,
    strictBuiltinErrors: options.strict === true,
  });
  const x = rows[0]?.x;
  return x === undefined ? undefined : toJS(x);
}

function strictError(body: string, input?: unknown): PolicyError {
  try {
    evaluate(body, { strict: true, ...(input === undefined ? {} : { input }) });
  } catch (e) {
    if (PolicyError.isInstance(e)) return e;
    throw e;
  }
  throw new Error('no error');
}

describe('builtin families in policies', () => {
  it('evaluates time builtins with a fixed query time', () => {
    const doc = evaluate(
      [
        'count_now := count({time.now_ns() | numbers.range(1, 100)[_]})',
        'now := time.now_ns()',
        'parsed := time.parse_rfc3339_ns("2017-06-02T19:00:00-07:00")',
        'formatted := time.format([parsed, "Asia/Kolkata", "RFC1123Z"])',
        'diff := time.diff(time.parse_ns("2006-01-02", "2020-02-02"), time.parse_ns("2006-01-02", "2020-03-01"))',
        'week := time.parse_duration_ns("168h")',
      ].join('\n'),
      { timeNs: 1_700_000_000_123_456_789n },
    );
    expect(doc).toEqual({
      count_now: 1,
      now: 1_700_000_000_123_456_789n,
      parsed: 1496455200000000000n,
      formatted: 'Sat, 03 Jun 2017 07:30:00 +0530',
      diff: [0, 0, 28, 0, 0, 0],
      week: 604800000000000,
    });
  });

  it('makes failing calls undefined, or errors in strict mode', () => {
    expect(evaluate('p := time.parse_rfc3339_ns("1677-09-21T00:12:43.145224191Z")\nq := 1')).toEqual({ q: 1 });
    const e = strictError('p := time.parse_rfc3339_ns("1677-09-21T00:12:43.145224191Z")');
    expect(e.code).toBe('eval_builtin_error');
    expect(e.message).toContain('time.parse_rfc3339_ns: time outside of valid range');
    // An operand of the wrong type from the input (a literal one is OPA's compile-time rego_type_error).
    const t = strictError('p := time.date(input.x)\nq := time.date(input.s)', { s: 'x' });
    expect(t.code).toBe('eval_type_error');
    expect(t.message).toContain('time.date: operand 1 must be either number (ns) or [number (ns), string (tz)] but got string');
  });

  it('evaluates units, net, semver, crypto and uuid builtins', () => {
    const doc = evaluate(
      [
        'half if units.parse("500m") == 0.5',
        'kib := units.parse_bytes("1.1KiB")',
        'in_net := net.cidr_contains("2001:db8::/32", input.addr)',
        'merged := net.cidr_merge(["192.0.128.0/24", "192.0.129.0/24", "2001:db8::/33", "2001:db8:8000::/33"])',
        'newer := semver.compare("1.10.0", "1.9.9")',
        'mac := crypto.hmac.sha256("msg", "key")',
        'same_uuid := count({uuid.rfc4122("k") | numbers.range(1, 10)[_]})',
        'parsed := uuid.parse("6bea8ef2d3d33cd184e09bab06a52ece")',
        'bad_uuid := uuid.parse("nope")',
      ].join('\n'),
      { input: { addr: '2001:db8::42' } },
    );
    expect(doc).toEqual({
      half: true,
      kib: 1126,
      in_net: true,
      merged: ['192.0.128.0/23', '2001:db8::/32'],
      newer: 1,
      mac: '2d93cbc1be167bcb1637a4a23cbff01a7878f0c50ee833954ea5221bb1b8c628',
      same_uuid: 1,
      parsed: { variant: 'RFC4122', version: 3 },
    });
  });

  it("reports OPA's messages for strict errors", () => {
    const u = strictError('p := units.parse("")');
    expect(u.code).toBe('eval_builtin_error');
    expect(u.message).toContain('units.parse: no amount provided');
    const n = strictError('p := net.cidr_merge(["2601::1"])');
    expect(n.message).toContain('net.cidr_merge: IPv6 invalid: needs prefix length');
    const s = strictError('p := semver.compare("1.0.0", "x")');
    expect(s.message).toContain('semver.compare: operand 2: string "x" is not a valid SemVer');
    const c = strictError('p := crypto.md5(input.n)', { n: 1 });
    expect(c.code).toBe('eval_type_error');
    expect(c.message).toContain('crypto.md5: operand 1 must be string but got number');
  });
});
