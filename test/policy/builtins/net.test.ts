import { describe, expect, it } from 'vitest';
import { netBuiltins } from '../../../runtime/policy/builtins/net.js';
import { RegoObject, RegoSet, type Value } from '../../../runtime/policy/value.js';
import { toJS } from '../../../runtime/policy/value-json.js';
import { call, callError } from './builtin-test-kit.js';

const n = (name: string, ...args: Value[]): Value | undefined => call(netBuiltins, name, args);
const err = (name: string, ...args: Value[]): string => callError(netBuiltins, name, args).message;
/** A set result as a sorted JS array. */
const members = (v: Value | undefined): unknown[] => {
  expect(v).toBeInstanceOf(RegoSet);
  return toJS(v as Value) as unknown[];
};

describe('net.cidr_contains', () => {
  it('checks addresses and networks, IPv4 and IPv6', () => {
    expect(n('net.cidr_contains', '10.0.0.0/8', '10.1.2.3')).toBe(true);
    expect(n('net.cidr_contains', '10.0.0.0/8', '11.0.0.0')).toBe(false);
    expect(n('net.cidr_contains', '10.0.0.0/8', '10.1.0.0/16')).toBe(true);
    expect(n('net.cidr_contains', '10.0.0.0/16', '10.0.0.0/8')).toBe(false);
    expect(n('net.cidr_contains', '10.0.0.0/8', '10.255.255.255/32')).toBe(true);
    expect(n('net.cidr_contains', '0.0.0.0/0', '255.255.255.255')).toBe(true);
    expect(n('net.cidr_contains', '2001:db8::/32', '2001:db8:1::1')).toBe(true);
    expect(n('net.cidr_contains', '2001:db8::/32', '2001:db9::/32')).toBe(false);
    expect(n('net.cidr_contains', '2001:db8::/32', '2001:db8:ffff:ffff::/64')).toBe(true);
    expect(n('net.cidr_contains', '2001:db8::/32', '2001:db8::/31')).toBe(false);
    expect(n('net.cidr_contains', '::/0', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')).toBe(true);
    expect(n('net.cidr_contains', '10.0.0.0/8', '::1')).toBe(false);
    expect(n('net.cidr_contains', '10.0.0.0/8', '::ffff:10.1.1.1')).toBe(true);
    expect(n('net.cidr_contains', '10.1.2.3/8', '10.200.0.0')).toBe(true); // host bits are ignored
  });

  it("reports OPA's errors", () => {
    expect(err('net.cidr_contains', 'foo', '1.2.3.4')).toBe('invalid CIDR address: foo');
    expect(err('net.cidr_contains', '010.0.0.0/8', '1.2.3.4')).toBe('invalid CIDR address: 010.0.0.0/8');
    expect(err('net.cidr_contains', '10.0.0.0/33', '1.2.3.4')).toBe('invalid CIDR address: 10.0.0.0/33');
    expect(err('net.cidr_contains', '10.0.0.0/8', 'bar')).toBe('not a valid textual representation of an IP address or CIDR: bar');
    const e = callError(netBuiltins, 'net.cidr_contains', [1, '1.2.3.4']);
    expect(e.kind).toBe('type');
    expect(e.message).toBe('operand 1 must be string but got number');
    // OPA names the second operand "operand 1" too.
    expect(err('net.cidr_contains', '10.0.0.0/8', 1)).toBe('operand 1 must be string but got number');
  });
});

describe('net.cidr_intersects', () => {
  it('detects overlap', () => {
    expect(n('net.cidr_intersects', '192.168.1.0/24', '192.168.0.0/16')).toBe(true);
    expect(n('net.cidr_intersects', '192.168.0.0/16', '192.168.1.0/24')).toBe(true);
    expect(n('net.cidr_intersects', '10.0.0.0/8', '11.0.0.0/8')).toBe(false);
    expect(n('net.cidr_intersects', 'fd00::/8', 'fd12:3456::/32')).toBe(true);
    expect(n('net.cidr_intersects', 'fd00::/8', 'fe00::/8')).toBe(false);
    expect(n('net.cidr_intersects', '10.0.0.0/8', 'fd00::/8')).toBe(false);
  });

  it('requires CIDRs', () => {
    expect(err('net.cidr_intersects', '10.0.0.0/8', '10.0.0.1')).toBe('invalid CIDR address: 10.0.0.1');
    expect(err('net.cidr_intersects', '10.0.0.0/8', [])).toBe('operand 1 must be string but got array');
  });
});

describe('net.cidr_is_valid', () => {
  it('validates CIDR strings', () => {
    expect(n('net.cidr_is_valid', '192.168.0.0/30')).toBe(true);
    expect(n('net.cidr_is_valid', '10.0.0.0/08')).toBe(true);
    expect(n('net.cidr_is_valid', '::/0')).toBe(true);
    expect(n('net.cidr_is_valid', '2001:db8::1:0:0:1/64')).toBe(true);
    expect(n('net.cidr_is_valid', '::ffff:1.2.3.4/120')).toBe(true);
    for (const bad of [
      '192.168.0.500/30',
      '1.2.3.4',
      '1.2.3/8',
      '1.2.3.4/',
      '1.2.3.4/-1',
      '1.2.3.4/8/9',
      'fe80::1%eth0/64',
      '::1/129',
      '1:2:3:4:5:6:7:8:9/64',
      '1::2::3/64',
      '12345::/16',
      '',
    ]) {
      expect(n('net.cidr_is_valid', bad), bad).toBe(false);
    }
    expect(n('net.cidr_is_valid', 1)).toBe(false);
  });
});

describe('net.cidr_expand', () => {
  it('lists the hosts of small networks', () => {
    expect(members(n('net.cidr_expand', '192.168.0.0/30'))).toEqual(['192.168.0.0', '192.168.0.1', '192.168.0.2', '192.168.0.3']);
    expect(members(n('net.cidr_expand', '192.168.1.5/30'))).toEqual(['192.168.1.4', '192.168.1.5', '192.168.1.6', '192.168.1.7']);
    expect(members(n('net.cidr_expand', '1.1.0.0/32'))).toEqual(['1.1.0.0']);
    expect(members(n('net.cidr_expand', '255.255.255.254/31'))).toEqual(['255.255.255.254', '255.255.255.255']);
    expect(members(n('net.cidr_expand', '2002::1234:abcd:ffff:c0a8:101/127'))).toEqual(['2002::1234:abcd:ffff:c0a8:100', '2002::1234:abcd:ffff:c0a8:101']);
    expect(members(n('net.cidr_expand', '::ffff:10.0.0.0/126'))).toEqual(['10.0.0.0', '10.0.0.1', '10.0.0.2', '10.0.0.3']);
    expect((n('net.cidr_expand', '10.0.0.0/16') as RegoSet).size).toBe(65536);
  });

  it('fails on invalid and very large networks', () => {
    expect(err('net.cidr_expand', '1.2.3.4')).toBe('invalid CIDR address: 1.2.3.4');
    expect(err('net.cidr_expand', '10.0.0.0/8')).toMatch(/too many addresses/);
    expect(err('net.cidr_expand', 5)).toBe('operand 1 must be string but got number');
  });
});

describe('net.cidr_contains_matches', () => {
  it('matches strings, arrays, sets and objects', () => {
    expect(members(n('net.cidr_contains_matches', '1.1.1.0/24', '1.1.1.128'))).toEqual([['1.1.1.0/24', '1.1.1.128']]);
    expect(members(n('net.cidr_contains_matches', ['1.1.1.0/24', '1.1.2.0/24'], '1.1.1.128'))).toEqual([[0, '1.1.1.128']]);
    expect(members(n('net.cidr_contains_matches', [['1.1.0.0/16', 'foo'], '1.1.2.0/24'], ['1.1.1.128', ['1.1.254.254', 'bar']]))).toEqual([
      [0, 0],
      [0, 1],
    ]);
    const cidrs = RegoSet.of([['1.1.2.0/24', 'foo', 1], '1.1.0.0/16']);
    const addrs = RegoObject.fromEntries([
      ['x', '1.1.1.128'],
      ['y', ['1.1.254.254', 'bar']],
    ]);
    expect(members(n('net.cidr_contains_matches', cidrs, addrs))).toEqual([
      ['1.1.0.0/16', 'x'],
      ['1.1.0.0/16', 'y'],
    ]);
    expect(members(n('net.cidr_contains_matches', ['2001:db8::/32'], ['2001:db8::1', '10.0.0.1']))).toEqual([[0, 0]]);
    expect(members(n('net.cidr_contains_matches', 1, '1.1.1.1'))).toEqual([]);
  });

  it('reports bad elements', () => {
    expect(err('net.cidr_contains_matches', [1], '1.1.1.1')).toBe('operand 1: element must be string or non-empty array');
    expect(err('net.cidr_contains_matches', ['1.0.0.0/8'], [[]])).toBe('operand 2: element must be string or non-empty array');
    expect(err('net.cidr_contains_matches', [[1]], '1.1.1.1')).toBe('operand 1 must be string but got number');
    expect(err('net.cidr_contains_matches', ['x'], '1.1.1.1')).toBe('invalid CIDR address: x');
  });
});

describe('net.cidr_merge', () => {
  const merge = (...xs: string[]): unknown[] => members(n('net.cidr_merge', xs));
  it('merges adjacent and contained networks', () => {
    expect(merge('192.0.128.0/24')).toEqual(['192.0.128.0/24']);
    expect(merge('192.0.128.0/24', '192.0.128.0/24')).toEqual(['192.0.128.0/24']);
    expect(merge('192.0.128.0/24', '0.0.0.0/0')).toEqual(['0.0.0.0/0']);
    expect(merge('192.0.128.0/24', '192.0.129.0/24')).toEqual(['192.0.128.0/23']);
    expect(merge('192.0.2.112/30', '192.0.2.116/31', '192.0.2.118/31')).toEqual(['192.0.2.112/29']);
    expect(merge('192.0.129.0/24', '192.0.130.0/24')).toEqual(['192.0.129.0/24', '192.0.130.0/24']);
    expect(merge('192.0.2.112/30', '192.0.2.116/32', '192.0.2.118/31')).toEqual(['192.0.2.112/30', '192.0.2.116/32', '192.0.2.118/31']);
    expect(merge('192.0.2.112/31', '192.0.2.116/31', '192.0.2.118/31')).toEqual(['192.0.2.112/31', '192.0.2.116/30']);
    const sixteen = Array.from({ length: 16 }, (_, i) => `192.0.2.${i * 16}/28`);
    expect(merge('192.0.1.254/31', ...sixteen, '192.0.3.0/28')).toEqual(['192.0.1.254/31', '192.0.2.0/24', '192.0.3.0/28']);
    // Merged ranges that are not one block are covered by the fewest CIDRs.
    expect(merge('10.0.0.1/32', '10.0.0.2/31', '10.0.0.4/32')).toEqual(['10.0.0.1/32', '10.0.0.2/31', '10.0.0.4/32']);
    expect(merge('10.0.0.1/32', '10.0.0.2/32')).toEqual(['10.0.0.1/32', '10.0.0.2/32']);
  });

  it('merges IPv6 and mixed families', () => {
    expect(merge('::/0', 'fe80::1/128')).toEqual(['::/0']);
    expect(merge('::/0', '::192.0.2.0/124', 'ff00::101/128')).toEqual(['::/0']);
    expect(merge('fe80::/120', '192.0.2.0/24', '192.0.3.0/24', '192.0.4.0/25', '192.0.4.128/25')).toEqual(['192.0.2.0/23', '192.0.4.0/24', 'fe80::/120']);
    expect(merge('2001:0db8::/32', '2001:0db9::/32')).toEqual(['2001:db8::/31']);
    expect(merge('1900::1/96', '1900::20/64')).toEqual(['1900::/64']);
    expect(merge('2601:600:8a80:207e:a57d:7567:e2c9:e7b3/64', '2601:600:8a80:207e:a57d:7567:e2c9:e7b3/128')).toEqual(['2601:600:8a80:207e::/64']);
  });

  it('gives bare IPv4 addresses their classful mask, as OPA does', () => {
    expect(merge('192.0.2.112', '192.0.2.116/31', '192.0.2.118/31')).toEqual(['192.0.2.0/24']);
    expect(merge('192.0.128.0', '192.0.129.0')).toEqual(['192.0.128.0/23']);
    expect(merge('10.1.2.3')).toEqual(['10.1.2.3/8']);
    expect(merge('172.16.5.4')).toEqual(['172.16.5.4/16']);
  });

  it('accepts sets and empty input', () => {
    expect(members(n('net.cidr_merge', RegoSet.of(['192.0.2.112/30', '192.0.2.116/31', '192.0.2.118/31'])))).toEqual(['192.0.2.112/29']);
    expect(members(n('net.cidr_merge', []))).toEqual([]);
  });

  it("reports OPA's errors", () => {
    expect(err('net.cidr_merge', ['foo'])).toBe('invalid CIDR address: foo');
    expect(err('net.cidr_merge', [1])).toBe('element must be string');
    expect(err('net.cidr_merge', ['2601:600:8a80:207e:a57d:7567:e2c9:e7b3'])).toBe('IPv6 invalid: needs prefix length');
    expect(err('net.cidr_merge', '10.0.0.0/8')).toBe('operand must be an array');
  });
});
