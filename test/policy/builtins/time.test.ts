import { describe, expect, it } from 'vitest';
import { timeBuiltins } from '../../../runtime/policy/builtins/time.js';
import { RegoDecimal, type Value } from '../../../runtime/policy/value.js';
import { call, callError, fakeContext } from './builtin-test-kit.js';

const t = (name: string, ...args: Value[]): Value | undefined => call(timeBuiltins, name, args);
const err = (name: string, ...args: Value[]): string => callError(timeBuiltins, name, args).message;

/** Nanoseconds for whole seconds, as the value model keeps them (bigint beyond 2^53). */
const sec = (n: number): bigint | number => {
  const b = BigInt(n) * 1_000_000_000n;
  return b <= BigInt(Number.MAX_SAFE_INTEGER) && b >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(b) : b;
};
const localIsUtc = ['UTC', 'Etc/UTC'].includes(new Intl.DateTimeFormat().resolvedOptions().timeZone);

describe('time.now_ns', () => {
  it('returns the query time, as a bigint beyond 2^53', () => {
    expect(call(timeBuiltins, 'time.now_ns', [], fakeContext(1_700_000_000_123_456_789n))).toBe(1_700_000_000_123_456_789n);
    expect(call(timeBuiltins, 'time.now_ns', [], fakeContext(5n))).toBe(5);
    expect(timeBuiltins.find((d) => d.name === 'time.now_ns')?.nondeterministic).toBe(true);
  });
});

describe('time.parse_rfc3339_ns', () => {
  it('parses offsets, fractions and the int64 bounds', () => {
    expect(t('time.parse_rfc3339_ns', '1970-01-01T00:00:00-00:00')).toBe(0);
    expect(t('time.parse_rfc3339_ns', '2017-06-02T19:00:00-07:00')).toBe(1496455200000000000n);
    expect(t('time.parse_rfc3339_ns', '1677-09-21T00:12:43.145224192-00:00')).toBe(-9223372036854775808n);
    expect(t('time.parse_rfc3339_ns', '2262-04-11T23:47:16.854775807Z')).toBe(9223372036854775807n);
    expect(t('time.parse_rfc3339_ns', '2020-01-01T00:00:00.5Z')).toBe(1577836800500000000n);
    // Digits past nanoseconds are truncated; a comma separator is accepted.
    expect(t('time.parse_rfc3339_ns', '2020-01-01T00:00:00,1234567891Z')).toBe(1577836800123456789n);
    // Go's generic parser accepts a one-digit hour.
    expect(t('time.parse_rfc3339_ns', '2020-01-01T1:00:00Z')).toBe(1577840400000000000n);
  });

  it('rejects times outside the int64 range', () => {
    expect(err('time.parse_rfc3339_ns', '1677-09-21T00:12:43.145224191-00:00')).toBe('time outside of valid range');
    expect(err('time.parse_rfc3339_ns', '2262-04-11T23:47:16.854775808-00:00')).toBe('time outside of valid range');
    expect(err('time.parse_rfc3339_ns', '9999-12-31T23:59:59Z')).toBe('time outside of valid range');
  });

  it("reports Go's parse errors", () => {
    expect(err('time.parse_rfc3339_ns', 'foo')).toBe('parsing time "foo" as "2006-01-02T15:04:05Z07:00": cannot parse "foo" as "2006"');
    expect(err('time.parse_rfc3339_ns', '2020-01-01')).toBe('parsing time "2020-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"');
    expect(err('time.parse_rfc3339_ns', '2020-13-01T00:00:00Z')).toBe('parsing time "2020-13-01T00:00:00Z": month out of range');
    expect(err('time.parse_rfc3339_ns', '2021-02-29T00:00:00Z')).toBe('parsing time "2021-02-29T00:00:00Z": day out of range');
    expect(err('time.parse_rfc3339_ns', '2020-01-01T24:00:00Z')).toBe('parsing time "2020-01-01T24:00:00Z": hour out of range');
    expect(err('time.parse_rfc3339_ns', '2020-01-01T00:00:00Zjunk')).toBe('parsing time "2020-01-01T00:00:00Zjunk": extra text: "junk"');
    expect(err('time.parse_rfc3339_ns', '2020-01-01T00:00:00+25:00')).toBe('parsing time "2020-01-01T00:00:00+25:00": time zone offset hour out of range');
    expect(err('time.parse_rfc3339_ns', 'é')).toBe('parsing time "\\xc3\\xa9" as "2006-01-02T15:04:05Z07:00": cannot parse "\\xc3\\xa9" as "2006"');
  });

  it('type-checks its operand', () => {
    const e = callError(timeBuiltins, 'time.parse_rfc3339_ns', [1]);
    expect(e.kind).toBe('type');
    expect(e.message).toBe('operand 1 must be string but got number');
  });
});

describe('time.parse_ns', () => {
  it('parses Go reference layouts', () => {
    expect(t('time.parse_ns', '2006-01-02', '2020-03-01')).toBe(1583020800000000000n);
    expect(t('time.parse_ns', '2006-01-02 15:04:05 -0700', '2020-01-01 00:00:00 +0530')).toBe(1577817000000000000n);
    expect(t('time.parse_ns', '02 Jan 06 15:04 -0700', '02 Jan 06 15:04 -0700')).toBe(1136239440000000000n);
    expect(t('time.parse_ns', 'Jan _2 2006 3:04PM', 'Feb  3 2013 2:40PM')).toBe(1359902400000000000n);
    expect(t('time.parse_ns', 'January 2, 2006 at 3pm', 'march 4, 2021 at 12am')).toBe(1614816000000000000n);
    expect(t('time.parse_ns', 'Monday 2006-01-02', 'tuesday 2021-03-02')).toBe(1614643200000000000n);
    expect(t('time.parse_ns', '2006 002', '2020 060')).toBe(1582934400000000000n); // day 60 of a leap year: Feb 29
    expect(t('time.parse_ns', '06-01-02', '69-01-01')).toBe(-31536000000000000n);
    expect(t('time.parse_ns', '2006-01-02T15:04:05.000Z', '2020-01-01T00:00:00.120Z')).toBe(1577836800120000000n);
  });

  it('accepts the named layouts OPA knows', () => {
    expect(t('time.parse_ns', 'RFC822Z', '02 Jan 06 15:04 -0700')).toBe(1136239440000000000n);
    expect(t('time.parse_ns', 'RFC3339', '2006-01-02T15:04:05-07:00')).toBe(1136239445000000000n);
    expect(t('time.parse_ns', 'RFC1123Z', 'Mon, 02 Jan 2006 15:04:05 -0700')).toBe(1136239445000000000n);
    expect(t('time.parse_ns', 'ANSIC', 'Mon Jan  2 15:04:05 2006')).toBe(1136214245000000000n);
  });

  it.runIf(localIsUtc)('reads zone abbreviations the local zone does not use as UTC wall time', () => {
    expect(t('time.parse_ns', 'RFC1123', 'Mon, 02 Jan 2006 15:04:05 PST')).toBe(1136214245000000000n);
    expect(t('time.parse_ns', '2006-01-02 MST', '2020-01-01 GMT+3')).toBe(1577836800000000000n);
    expect(t('time.parse_ns', '2006-01-02 MST', '2020-01-01 UTC')).toBe(1577836800000000000n);
  });

  it('reports errors', () => {
    expect(err('time.parse_ns', '2006-01-02', '2020/01/01')).toBe('parsing time "2020/01/01" as "2006-01-02": cannot parse "/01/01" as "-"');
    expect(err('time.parse_ns', '2006-01-02', '2020-1-01')).toBe('parsing time "2020-1-01" as "2006-01-02": cannot parse "1-01" as "01"');
    expect(err('time.parse_ns', 'Mon Jan 2', 'Mon Foo 2')).toBe('parsing time "Mon Foo 2" as "Mon Jan 2": cannot parse "Foo 2" as "Jan"');
    expect(err('time.parse_ns', '2006 002', '2021 366')).toBe('parsing time "2021 366": day-of-year out of range');
    expect(err('time.parse_ns', '15:04', '10:30')).toBe('time outside of valid range'); // year 0
    expect(callError(timeBuiltins, 'time.parse_ns', ['2006', 2020]).message).toBe('operand 2 must be string but got number');
    expect(callError(timeBuiltins, 'time.parse_ns', [null, '2020']).message).toBe('operand 1 must be string but got null');
  });
});

describe('time.parse_duration_ns', () => {
  it('parses Go durations', () => {
    expect(t('time.parse_duration_ns', '100ms')).toBe(100_000_000);
    expect(t('time.parse_duration_ns', '1h30m')).toBe(5_400_000_000_000);
    expect(t('time.parse_duration_ns', '-1.5h')).toBe(-5_400_000_000_000);
    expect(t('time.parse_duration_ns', '+.5s')).toBe(500_000_000);
    expect(t('time.parse_duration_ns', '1.5µs')).toBe(1500);
    expect(t('time.parse_duration_ns', '3μs2us1ns')).toBe(5001);
    expect(t('time.parse_duration_ns', '0')).toBe(0);
    expect(t('time.parse_duration_ns', '-0')).toBe(0);
    expect(t('time.parse_duration_ns', '1.0000000001s')).toBe(1_000_000_000);
    expect(t('time.parse_duration_ns', '2562047h47m16.854775807s')).toBe(9223372036854775807n);
    expect(t('time.parse_duration_ns', '-9223372036854775808ns')).toBe(-9223372036854775808n);
  });

  it("reports Go's errors", () => {
    expect(err('time.parse_duration_ns', '')).toBe('time: invalid duration ""');
    expect(err('time.parse_duration_ns', '1')).toBe('time: missing unit in duration "1"');
    expect(err('time.parse_duration_ns', '1d')).toBe('time: unknown unit "d" in duration "1d"');
    expect(err('time.parse_duration_ns', '.s')).toBe('time: invalid duration ".s"');
    expect(err('time.parse_duration_ns', '9223372036854775808ns')).toBe('time: invalid duration "9223372036854775808ns"');
    expect(err('time.parse_duration_ns', '3000000h')).toBe('time: invalid duration "3000000h"');
    expect(err('time.parse_duration_ns', '1 h')).toBe('time: unknown unit " h" in duration "1 h"');
  });
});

describe('time.date, time.clock, time.weekday', () => {
  it('breaks down UTC times', () => {
    expect(t('time.date', sec(1517814000))).toEqual([2018, 2, 5]);
    expect(t('time.clock', sec(1582977600))).toEqual([12, 0, 0]);
    expect(t('time.weekday', sec(1518177600))).toBe('Friday');
    expect(t('time.date', [0])).toEqual([1970, 1, 1]);
    expect(t('time.date', -1)).toEqual([1969, 12, 31]);
    expect(t('time.clock', -1)).toEqual([23, 59, 59]);
  });

  it('handles the int64 extremes', () => {
    expect(t('time.date', -9223372036854775808n)).toEqual([1677, 9, 21]);
    expect(t('time.clock', -9223372036854775808n)).toEqual([0, 12, 43]);
    expect(t('time.date', 9223372036854775807n)).toEqual([2262, 4, 11]);
    expect(t('time.clock', 9223372036854775807n)).toEqual([23, 47, 16]);
    expect(t('time.weekday', 9223372036854775807n)).toBe('Friday');
  });

  it('uses the given time zone', () => {
    expect(t('time.clock', [sec(1517832000), 'America/New_York'])).toEqual([7, 0, 0]);
    expect(t('time.date', [sec(1517832000), 'Asia/Tokyo'])).toEqual([2018, 2, 5]);
    expect(t('time.clock', [sec(1517832000), 'Asia/Kolkata'])).toEqual([17, 30, 0]);
    expect(t('time.weekday', [0, 'America/Los_Angeles'])).toBe('Wednesday');
    expect(t('time.clock', [sec(1656000000), 'Europe/Paris'])).toEqual([18, 0, 0]); // CEST in June
    expect(t('time.clock', [0, 'UTC'])).toEqual([0, 0, 0]);
    expect(t('time.clock', [0, ''])).toEqual([0, 0, 0]);
    expect(Array.isArray(t('time.clock', [0, 'Local']))).toBe(true);
  });

  it('rejects non-integers, out-of-range numbers and bad operands', () => {
    expect(err('time.weekday', 1582977600n * 1_000_000_000_000n)).toBe('timestamp too big');
    expect(err('time.date', 1.5)).toBe('timestamp too big');
    expect(err('time.date', new RegoDecimal(15n, -1))).toBe('timestamp too big');
    expect(err('time.date', [0, 'Mars/Olympus'])).toBe('unknown time zone Mars/Olympus');
    expect(err('time.date', [0, 'america/new_york'])).toBe('unknown time zone america/new_york');
    const e = callError(timeBuiltins, 'time.date', ['2020']);
    expect(e.kind).toBe('type');
    expect(e.message).toBe('operand 1 must be either number (ns) or [number (ns), string (tz)] but got string');
    expect(err('time.date', [])).toBe('operand 1 must be either number (ns) or [number (ns), string (tz)] but got array');
    expect(err('time.clock', ['0'])).toBe('operand 1 must be number but got string');
    expect(err('time.clock', [0, 1])).toBe('operand 1 must be string but got number');
  });
});

describe('time.format', () => {
  const ns = 1670006453141828752n;
  it('formats RFC3339Nano by default, in the given zone', () => {
    expect(t('time.format', ns)).toBe('2022-12-02T18:40:53.141828752Z');
    expect(t('time.format', [ns, 'Asia/Kolkata'])).toBe('2022-12-03T00:10:53.141828752+05:30');
    expect(t('time.format', [ns, 'Asia/Kolkata', 'Mon Jan 02 15:04:05 -0700 2006'])).toBe('Sat Dec 03 00:10:53 +0530 2022');
    expect(t('time.format', [ns, 'Asia/Kolkata', 'RFC1123Z'])).toBe('Sat, 03 Dec 2022 00:10:53 +0530');
    expect(t('time.format', 0)).toBe('1970-01-01T00:00:00Z');
    expect(t('time.format', -9223372036854775808n)).toBe('1677-09-21T00:12:43.145224192Z');
  });

  it('supports the Go layout elements', () => {
    const x = 1500000000123456789n; // 2017-07-14T02:40:00.123456789Z
    expect(t('time.format', [x, 'UTC', '2006-01-02 15:04:05.000'])).toBe('2017-07-14 02:40:00.123');
    expect(t('time.format', [x, 'UTC', '05,999999'])).toBe('00,123456');
    expect(t('time.format', [1500000000100000000n, 'UTC', '05.999'])).toBe('00.1');
    expect(t('time.format', [1500000000000000000n, 'UTC', '05.999'])).toBe('00');
    expect(t('time.format', [x, 'UTC', '__2 002 Jan _2 January Monday Mon'])).toBe('195 195 Jul 14 July Friday Fri');
    expect(t('time.format', [x, 'UTC', '3:4:5 03 PM pm 06 1 2'])).toBe('2:40:0 02 AM am 17 7 14');
    expect(t('time.format', [x, 'UTC', 'Z07 Z0700 Z07:00 -07 -0700 -07:00:00'])).toBe('Z Z Z +00 +0000 +00:00:00');
    expect(t('time.format', [x, 'Asia/Kolkata', '-07:00:00 Z070000 -07'])).toBe('+05:30:00 +053000 +05');
    expect(t('time.format', [0, 'America/New_York', '-07 Z07:00'])).toBe('-05 -05:00');
    expect(t('time.format', [0, '', 'Kitchen'])).toBe('Kitchen'); // not a name OPA knows: literal text
    expect(t('time.format', [0, '', '3:04PM'])).toBe('12:00AM');
  });

  it('prints zone abbreviations', () => {
    expect(t('time.format', [0, 'America/New_York', 'RFC1123'])).toBe('Wed, 31 Dec 1969 19:00:00 EST');
    expect(t('time.format', [0, 'Europe/Paris', 'RFC1123'])).toBe('Thu, 01 Jan 1970 01:00:00 CET');
    expect(t('time.format', [sec(1656000000), 'Europe/Paris', 'MST'])).toBe('CEST');
    expect(t('time.format', [sec(1136239445), 'UTC', 'RFC850'])).toBe('Monday, 02-Jan-06 22:04:05 UTC');
    expect(t('time.format', [0, 'Asia/Dubai', 'MST'])).toBe('+04');
    expect(t('time.format', [0, 'Asia/Kolkata', 'UnixDate'])).toBe('Thu Jan  1 05:30:00 IST 1970');
  });

  it('rejects timestamps beyond int64', () => {
    expect(err('time.format', 1582977600n * 10n ** 13n)).toBe('timestamp too big');
    expect(err('time.format', [0, 'UTC', 5])).toBe('operand 1 must be string but got number');
  });
});

describe('time.add_date', () => {
  it('adds years, months and days, normalising overflow', () => {
    expect(t('time.add_date', 1585852421593912000n, 3, 9, 12)).toBe(1705257221593912000n);
    expect(t('time.add_date', 0, 0, 1, 30)).toBe(sec(5270400));
    expect(t('time.add_date', sec(18292 * 86400), 0, 1, 0)).toBe(sec(18323 * 86400)); // Jan 31 + 1 month = Mar 2 (2020)
    expect(t('time.add_date', 0, -1, 0, 0)).toBe(sec(-31536000));
    expect(t('time.add_date', 0, 0, -13, 0)).toBe(sec(-34214400)); // Dec 1968
  });

  it('keeps the wall clock across DST in the given zone', () => {
    expect(t('time.add_date', [sec(1647104400), 'America/New_York'], 0, 0, 1)).toBe(sec(1647187200));
  });

  it('rejects results outside the int64 range', () => {
    expect(err('time.add_date', 0, 2262, 1, 1)).toBe('time outside of valid range');
    expect(err('time.add_date', 0, 9007199254740991, 0, 0)).toBe('time outside of valid range');
    expect(err('time.add_date', 0, 0, 0, 9223372036854775807n)).toBe('time outside of valid range');
    expect(err('time.add_date', 0, 0, 0, -200000)).toBe('time outside of valid range');
  });

  it('type-checks the counts', () => {
    expect(err('time.add_date', 0, 1.5, 0, 0)).toBe('operand 2 must be integer number but got floating-point number');
    expect(err('time.add_date', 0, 0, '1', 0)).toBe('operand 3 must be number but got string');
    expect(err('time.add_date', 0, 0, 0, 2n ** 64n)).toBe('operand 4 must be integer number but got floating-point number');
  });
});

describe('time.diff', () => {
  const day = (s: string): Value => t('time.parse_ns', '2006-01-02', s) as Value;
  it('computes calendar differences', () => {
    const now = 1_700_000_000n * 1_000_000_000n;
    expect(t('time.diff', now + 61n * 1_000_000_000n, now)).toEqual([0, 0, 0, 0, 1, 1]);
    expect(t('time.diff', [now + 60n * 1_000_000_000n, 'UTC'], [now, 'Asia/Shanghai'])).toEqual([0, 0, 0, 0, 1, 0]);
    expect(t('time.diff', day('2020-02-02'), day('2020-03-01'))).toEqual([0, 0, 28, 0, 0, 0]);
    expect(t('time.diff', day('2021-02-02'), day('2021-03-01'))).toEqual([0, 0, 27, 0, 0, 0]);
    expect(t('time.diff', day('2004-02-29'), day('2005-03-01'))).toEqual([1, 0, 1, 0, 0, 0]);
    expect(t('time.diff', day('2005-03-01'), day('2004-02-29'))).toEqual([1, 0, 1, 0, 0, 0]);
    expect(t('time.diff', -9223372036854775808n, 9223372036854775807n)).toEqual([584, 6, 20, 23, 34, 33]);
  });

  it("uses the first time's zone", () => {
    // 2022-01-01T03:00Z vs 2022-01-01T05:00Z: in New York the first is still Dec 31.
    const a = 1641006000n * 1_000_000_000n;
    const b = 1641013200n * 1_000_000_000n;
    expect(t('time.diff', [a, 'America/New_York'], b)).toEqual([0, 0, 0, 2, 0, 0]);
  });

  it('reports operand errors as operand 1, like OPA', () => {
    expect(err('time.diff', 0, 'x')).toBe('operand 1 must be either number (ns) or [number (ns), string (tz)] but got string');
  });
});
