/**
 * Time builtins: time.now_ns, time.parse_ns, time.parse_rfc3339_ns,
 * time.parse_duration_ns, time.format, time.date, time.clock, time.weekday,
 * time.add_date, time.diff.
 *
 * As in OPA, instants are int64 nanoseconds since the epoch (kept as bigint
 * here), and the functions taking a time accept either `ns` or
 * `[ns, tz]` (time.format also `[ns, tz, layout]`), where tz is an IANA zone
 * name, "UTC", "" (UTC) or "Local" (the process's zone). Results outside the
 * int64 range are errors (`time outside of valid range`).
 */
import { bigNum, isNumber, type NumberValue, type Value } from '../value.js';
import { asNumber, asString, BuiltinError, operandTypeError, type BuiltinDefinition } from './registry.js';
import { formatTime, NAMED_LAYOUTS, quote, RFC3339_NANO, weekdayName } from './time-layout.js';
import { parseLayout } from './time-parse.js';
import { abbreviation, civilTime, daysFromCivil, daysIn, floorDiv, loadZone, NS_PER_SEC, offsetAt, UTC_ZONE, wallToUnix, type Zone } from './time-zone.js';

const MIN_NS = -(1n << 63n);
const MAX_NS = (1n << 63n) - 1n;
const SECONDS_PER_DAY = 86_400n;
/** Years this far from the epoch are far outside the int64 nanosecond range (1677-2262). */
const MAX_YEAR_SPAN = 1_000_000n;

function safeNs(ns: bigint): Value {
  if (ns < MIN_NS || ns > MAX_NS) throw new BuiltinError('time outside of valid range');
  return bigNum(ns);
}

// ---------------------------------------------------------------------------
// Time operands

const TIME_OPERAND = 'either number (ns) or [number (ns), string (tz)]';

interface ZonedTime {
  ns: bigint;
  zone: Zone;
  /** Layout given as the third element (time.format), or "". */
  layout: string;
}

/** OPA's tzTime: `ns`, `[ns]`, `[ns, tz]` or `[ns, tz, layout]`. Errors always name operand 1, as OPA's do. */
function zonedTime(a: Value | undefined): ZonedTime {
  let n: NumberValue;
  let zone = UTC_ZONE;
  let layout = '';
  if (Array.isArray(a)) {
    if (a.length === 0) throw operandTypeError(1, a, TIME_OPERAND);
    n = asNumber(a[0], 1);
    if (a.length > 1) zone = loadZone(asString(a[1], 1));
    if (a.length > 2) layout = asString(a[2], 1);
  } else if (isNumber(a)) {
    n = a;
  } else {
    throw operandTypeError(1, a ?? null, TIME_OPERAND);
  }
  // Only integers that fit in int64 are timestamps (OPA: exact conversion or "timestamp too big").
  if (typeof n !== 'bigint' && !(typeof n === 'number' && Number.isInteger(n))) throw new BuiltinError('timestamp too big');
  const ns = BigInt(n);
  if (ns < MIN_NS || ns > MAX_NS) throw new BuiltinError('timestamp too big');
  return { ns, zone, layout };
}

/** An integer operand in the int64 range (OPA's IntOperand). */
function int64Operand(v: Value | undefined, pos: number): bigint {
  const n = asNumber(v, pos);
  const notInt = (): BuiltinError => BuiltinError.type(`operand ${pos} must be integer number but got floating-point number`);
  if (typeof n === 'number' && Number.isInteger(n)) return BigInt(n);
  if (typeof n !== 'bigint' || n < MIN_NS || n > MAX_NS) throw notInt();
  return n;
}

// ---------------------------------------------------------------------------
// Parsing

/** Offset of a zone abbreviation in the process's zone around `wallSec`, as Go's `Location.lookupName`. */
function localAbbreviationOffset(name: string, wallSec: number): number | null {
  const local = loadZone('Local');
  if (local.tz === null) return null;
  const halfYear = 183 * 86_400;
  // The zone's standard and daylight offsets around that date.
  const samples = [wallSec, wallSec - halfYear, wallSec + halfYear].map((t) => ({ t, off: offsetAt(local, t) }));
  // First a zone with that name in effect at the time, then any zone with that name.
  for (const { off } of samples) {
    const t = wallSec - off;
    if (offsetAt(local, t) === off && abbreviation(local, t, off) === name) return off;
  }
  for (const { t, off } of samples) if (abbreviation(local, t, off) === name) return off;
  return null;
}

/** Go's `time.Parse` to nanoseconds since the epoch. */
function parseNs(layout: string, value: string): bigint {
  const p = parseLayout(layout, value);
  const wall = BigInt(daysFromCivil(p.year, p.month, p.day)) * SECONDS_PER_DAY + BigInt(p.hour * 3600 + p.minute * 60 + p.second);
  let sec = wall;
  if (!p.utc) {
    if (p.zoneOffset !== -1) {
      sec -= BigInt(p.zoneOffset);
    } else if (p.zoneName !== '') {
      // Abbreviations the local zone does not use keep the wall clock as UTC (Go records a fake zone).
      const off = localAbbreviationOffset(p.zoneName, Number(wall));
      if (off !== null) sec -= BigInt(off);
    }
  }
  return sec * NS_PER_SEC + BigInt(p.nanosecond);
}

const UNIT_NS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  '\u00b5s': 1_000n, // micro sign
  '\u03bcs': 1_000n, // Greek mu
  ms: 1_000_000n,
  s: NS_PER_SEC,
  m: 60n * NS_PER_SEC,
  h: 3_600n * NS_PER_SEC,
};
const OVERFLOW = 1n << 63n;

function isDigitChar(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** Go's `time.ParseDuration` ("1h30m", "-1.5s", "300ms") to nanoseconds, with Go's error messages. */
export function parseDuration(orig: string): bigint {
  const invalid = (): BuiltinError => new BuiltinError(`time: invalid duration ${quote(orig)}`);
  let s = orig;
  let neg = false;
  if (s[0] === '-' || s[0] === '+') {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw invalid();
  let d = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || isDigitChar(s[0]))) throw invalid();
    // Integer part.
    let i = 0;
    let v = 0n;
    for (; i < s.length && isDigitChar(s[i]); i++) {
      if (v > OVERFLOW / 10n) throw invalid();
      v = v * 10n + BigInt(s.charCodeAt(i) - 48);
      if (v > OVERFLOW) throw invalid();
    }
    const pre = i > 0;
    s = s.slice(i);
    // Fraction: stops accumulating precision on overflow.
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s[0] === '.') {
      s = s.slice(1);
      let j = 0;
      let overflow = false;
      for (; j < s.length && isDigitChar(s[j]); j++) {
        if (overflow) continue;
        if (f > (OVERFLOW - 1n) / 10n) {
          overflow = true;
          continue;
        }
        const y = f * 10n + BigInt(s.charCodeAt(j) - 48);
        if (y > OVERFLOW) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) throw invalid();
    // Unit.
    let k = 0;
    while (k < s.length && s[k] !== '.' && !isDigitChar(s[k])) k++;
    if (k === 0) throw new BuiltinError(`time: missing unit in duration ${quote(orig)}`);
    const u = s.slice(0, k);
    s = s.slice(k);
    const unit = UNIT_NS[u];
    if (unit === undefined) throw new BuiltinError(`time: unknown unit ${quote(u)} in duration ${quote(orig)}`);
    if (v > OVERFLOW / unit) throw invalid();
    v *= unit;
    if (f > 0n) {
      // float64 arithmetic, as Go: nanosecond-accurate for fractions of hours.
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > OVERFLOW) throw invalid();
    }
    d += v;
    if (d > OVERFLOW) throw invalid();
  }
  if (neg) return -d;
  if (d > OVERFLOW - 1n) throw invalid();
  return d;
}

// ---------------------------------------------------------------------------
// Calendar operations

/** Go's `Time.AddDate` in the time's zone. */
function addDate(t: ZonedTime, years: bigint, months: bigint, days: bigint): bigint {
  const c = civilTime(t.ns, t.zone);
  let month0 = BigInt(c.month - 1) + months;
  const year = BigInt(c.year) + years + floorDiv(month0, 12n);
  month0 -= floorDiv(month0, 12n) * 12n;
  if (year > MAX_YEAR_SPAN || year < -MAX_YEAR_SPAN) throw new BuiltinError('time outside of valid range');
  const dayNumber = BigInt(daysFromCivil(Number(year), Number(month0) + 1, 1)) + BigInt(c.day - 1) + days;
  const wall = dayNumber * SECONDS_PER_DAY + BigInt(c.hour * 3600 + c.minute * 60 + c.second);
  // Past about ±292 years of seconds the result cannot be an int64 nanosecond count.
  if (wall > 1n << 40n || wall < -(1n << 40n)) throw new BuiltinError('time outside of valid range');
  return BigInt(wallToUnix(t.zone, Number(wall))) * NS_PER_SEC + BigInt(c.nanosecond);
}

/** [years, months, days, hours, minutes, seconds] between two times, in the first one's zone. */
function diff(a: ZonedTime, b: ZonedTime): number[] {
  const [early, late] = a.ns <= b.ns ? [a.ns, b.ns] : [b.ns, a.ns];
  const t1 = civilTime(early, a.zone);
  const t2 = civilTime(late, a.zone);
  let year = t2.year - t1.year;
  let month = t2.month - t1.month;
  let day = t2.day - t1.day;
  let hour = t2.hour - t1.hour;
  let min = t2.minute - t1.minute;
  let sec = t2.second - t1.second;
  if (sec < 0) {
    sec += 60;
    min--;
  }
  if (min < 0) {
    min += 60;
    hour--;
  }
  if (hour < 0) {
    hour += 24;
    day--;
  }
  if (day < 0) {
    day += daysIn(t1.month, t1.year);
    month--;
  }
  if (month < 0) {
    month += 12;
    year--;
  }
  return [year, month, day, hour, min, sec];
}

function format(t: ZonedTime): string {
  let layout = t.layout === '' ? RFC3339_NANO : t.layout;
  layout = NAMED_LAYOUTS[layout] ?? layout;
  const c = civilTime(t.ns, t.zone);
  return formatTime(c, abbreviation(t.zone, c.unixSec, c.offset), layout);
}

export const timeBuiltins: BuiltinDefinition[] = [
  {
    name: 'time.now_ns',
    args: [],
    result: 'number',
    nondeterministic: true,
    impl: (_args, ctx) => bigNum(ctx.timeNs),
  },
  {
    name: 'time.parse_ns',
    args: ['string', 'string'],
    result: 'number',
    impl: ([layout, value]) => {
      const l = asString(layout, 1);
      const v = asString(value, 2);
      return safeNs(parseNs(NAMED_LAYOUTS[l] ?? l, v));
    },
  },
  {
    name: 'time.parse_rfc3339_ns',
    args: ['string'],
    result: 'number',
    impl: ([value]) => safeNs(parseNs(NAMED_LAYOUTS.RFC3339 as string, asString(value, 1))),
  },
  {
    name: 'time.parse_duration_ns',
    args: ['string'],
    result: 'number',
    impl: ([value]) => bigNum(parseDuration(asString(value, 1))),
  },
  {
    name: 'time.format',
    args: ['any'],
    result: 'string',
    impl: ([x]) => format(zonedTime(x)),
  },
  {
    name: 'time.date',
    args: ['any'],
    result: 'array',
    impl: ([x]) => {
      const t = zonedTime(x);
      const c = civilTime(t.ns, t.zone);
      return [c.year, c.month, c.day];
    },
  },
  {
    name: 'time.clock',
    args: ['any'],
    result: 'array',
    impl: ([x]) => {
      const t = zonedTime(x);
      const c = civilTime(t.ns, t.zone);
      return [c.hour, c.minute, c.second];
    },
  },
  {
    name: 'time.weekday',
    args: ['any'],
    result: 'string',
    impl: ([x]) => {
      const t = zonedTime(x);
      return weekdayName(civilTime(t.ns, t.zone).weekday);
    },
  },
  {
    name: 'time.add_date',
    args: ['any', 'number', 'number', 'number'],
    result: 'number',
    impl: ([x, years, months, days]) => {
      const t = zonedTime(x);
      return safeNs(addDate(t, int64Operand(years, 2), int64Operand(months, 3), int64Operand(days, 4)));
    },
  },
  {
    name: 'time.diff',
    args: ['any', 'any'],
    result: 'array',
    impl: ([a, b]) => diff(zonedTime(a), zonedTime(b)),
  },
];
