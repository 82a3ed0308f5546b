/**
 * Go's `time.Parse` for time.parse_ns and time.parse_rfc3339_ns: validates a
 * value against a reference-time layout and reads its fields, with Go's
 * error messages (`parsing time "x" as "2006-01-02": cannot parse "x" as
 * "2006"`, `parsing time "x": month out of range`).
 *
 * Strings are handled as JS strings; Go works on UTF-8 bytes, which only
 * matters for inputs that fail to parse anyway.
 */
import { BuiltinError } from './registry.js';
import { isDigitAt, LONG_DAYS, LONG_MONTHS, nextChunk, quote, SHORT_DAYS, SHORT_MONTHS, type Kind } from './time-layout.js';
import { daysBefore, daysIn, isLeap } from './time-zone.js';

/** The fields `time.Parse` read, before they become an instant. */
export interface ParsedTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  nanosecond: number;
  /** The value said "Z" or "UTC". */
  utc: boolean;
  /** Numeric zone offset in seconds; -1 when none was given (as in Go, a real -1 is lost). */
  zoneOffset: number;
  /** Zone abbreviation given for "MST" ("" when none). */
  zoneName: string;
}

class Bad extends Error {}
const BAD = new Bad();

/** Go's `atoi`: optional sign, then digits only (a bare sign reads as 0, as in Go). */
function atoi(s: string): number {
  let i = 0;
  let neg = false;
  if (s[0] === '-' || s[0] === '+') {
    neg = s[0] === '-';
    i = 1;
  }
  let x = 0;
  for (; i < s.length; i++) {
    if (!isDigitAt(s, i)) throw BAD;
    x = x * 10 + (s.charCodeAt(i) - 48);
  }
  return neg ? -x : x;
}

/** One or two digits (exactly two when `fixed`). */
function getnum(s: string, fixed: boolean): [number, string] {
  if (!isDigitAt(s, 0)) throw BAD;
  if (!isDigitAt(s, 1)) {
    if (fixed) throw BAD;
    return [s.charCodeAt(0) - 48, s.slice(1)];
  }
  return [(s.charCodeAt(0) - 48) * 10 + (s.charCodeAt(1) - 48), s.slice(2)];
}

function getnum3(s: string, fixed: boolean): [number, string] {
  let n = 0;
  let i = 0;
  for (; i < 3 && isDigitAt(s, i); i++) n = n * 10 + (s.charCodeAt(i) - 48);
  if (i === 0 || (fixed && i !== 3)) throw BAD;
  return [n, s.slice(i)];
}

/** Go's `match`: equal, or the same ASCII letter in another case. */
function sameIgnoringCase(a: string, b: string): boolean {
  for (let i = 0; i < a.length; i++) {
    let c1 = a.charCodeAt(i);
    let c2 = b.charCodeAt(i);
    if (c1 !== c2) {
      c1 |= 0x20;
      c2 |= 0x20;
      if (c1 !== c2 || c1 < 97 || c1 > 122) return false;
    }
  }
  return true;
}

/** Case-insensitive match of `val`'s start against a name table: [index, rest]. */
function lookup(table: string[], val: string): [number, string] {
  for (let i = 0; i < table.length; i++) {
    const name = table[i] as string;
    if (val.length >= name.length && sameIgnoringCase(val.slice(0, name.length), name)) return [i, val.slice(name.length)];
  }
  throw BAD;
}

/**
 * Removes `prefix` from `value`, treating runs of spaces as equivalent.
 * On a mismatch `ok` is false and `value` is what was left at that point.
 */
function skip(value: string, prefix: string): { ok: boolean; value: string } {
  let v = value;
  let p = prefix;
  while (p.length > 0) {
    if (p[0] === ' ') {
      if (v.length > 0 && v[0] !== ' ') return { ok: false, value: v };
      p = p.replace(/^ +/, '');
      v = v.replace(/^ +/, '');
      continue;
    }
    if (v.length === 0 || v[0] !== p[0]) return { ok: false, value: v };
    p = p.slice(1);
    v = v.slice(1);
  }
  return { ok: true, value: v };
}

/** Length of a time zone abbreviation at the start of `value` (0 when there is none). */
function parseTimeZone(value: string): number {
  if (value.length < 3) return 0;
  if (value.startsWith('ChST') || value.startsWith('MeST')) return 4;
  if (value.startsWith('GMT')) return value.length === 3 ? 3 : 3 + parseSignedOffset(value.slice(3));
  if (value[0] === '+' || value[0] === '-') return parseSignedOffset(value);
  let upper = 0;
  while (upper < 6 && upper < value.length && /[A-Z]/.test(value[upper] as string)) upper++;
  switch (upper) {
    case 3:
      return 3;
    case 4:
      return value[3] === 'T' || value.startsWith('WITA') ? 4 : 0;
    case 5:
      return value[4] === 'T' ? 5 : 0;
    default:
      return 0;
  }
}

/** "+03" / "-4": a signed hour offset in -23..+23; its length, or 0. */
function parseSignedOffset(value: string): number {
  if (value[0] !== '-' && value[0] !== '+') return 0;
  const m = /^\d+/.exec(value.slice(1));
  if (m === null || Number(m[0]) > 23) return 0;
  return 1 + m[0].length;
}

function commaOrPeriod(c: string | undefined): boolean {
  return c === '.' || c === ',';
}

/** Fractional seconds from value[0:n] (separator included); range error text or the nanoseconds. */
function parseNanoseconds(value: string, nbytes: number): { ns: number; range: string } {
  if (!commaOrPeriod(value[0])) throw BAD;
  let n = nbytes;
  let v = value;
  if (n > 10) {
    v = v.slice(0, 10);
    n = 10;
  }
  let ns = atoi(v.slice(1, n));
  if (ns < 0) return { ns: 0, range: 'fractional second' };
  for (let i = 0; i < 10 - n; i++) ns *= 10;
  return { ns, range: '' };
}

function parseError(layout: string, value: string, elem: string, valueElem: string, message = ''): BuiltinError {
  if (message === '') {
    return new BuiltinError(`parsing time ${quote(value)} as ${quote(layout)}: cannot parse ${quote(valueElem)} as ${quote(elem)}`);
  }
  return new BuiltinError(`parsing time ${quote(value)}${message}`);
}

/**
 * Go's `time.Parse` up to building the instant: validates `value` against
 * `layout` and returns the fields read. Throws a BuiltinError with Go's message.
 */
export function parseLayout(layout: string, value: string): ParsedTime {
  const alayout = layout;
  const avalue = value;
  let rangeErr = '';
  let amSet = false;
  let pmSet = false;
  let year = 0;
  let month = -1;
  let day = -1;
  let yday = -1;
  let hour = 0;
  let min = 0;
  let sec = 0;
  let nsec = 0;
  let utc = false;
  let zoneOffset = -1;
  let zoneName = '';

  for (;;) {
    const { prefix, std, text, suffix } = nextChunk(layout);
    const skipped = skip(value, prefix);
    value = skipped.value;
    if (!skipped.ok) throw parseError(alayout, avalue, prefix, value);
    if (std === null) {
      if (value.length !== 0) throw parseError(alayout, avalue, '', value, ': extra text: ' + quote(value));
      break;
    }
    layout = suffix;
    const hold = value;
    try {
      switch (std.kind) {
        case 'Year': {
          if (value.length < 2) throw BAD;
          const p = value.slice(0, 2);
          value = value.slice(2);
          year = atoi(p);
          year += year >= 69 ? 1900 : 2000;
          break;
        }
        case 'LongYear':
          if (value.length < 4 || !isDigitAt(value, 0)) throw BAD;
          year = atoi(value.slice(0, 4));
          value = value.slice(4);
          break;
        case 'Month':
          [month, value] = lookup(SHORT_MONTHS, value);
          month++;
          break;
        case 'LongMonth':
          [month, value] = lookup(LONG_MONTHS, value);
          month++;
          break;
        case 'NumMonth':
        case 'ZeroMonth':
          [month, value] = getnum(value, std.kind === 'ZeroMonth');
          if (month <= 0 || month > 12) rangeErr = 'month';
          break;
        case 'WeekDay':
          value = lookup(SHORT_DAYS, value)[1];
          break;
        case 'LongWeekDay':
          value = lookup(LONG_DAYS, value)[1];
          break;
        case 'Day':
        case 'UnderDay':
        case 'ZeroDay':
          if (std.kind === 'UnderDay' && value[0] === ' ') value = value.slice(1);
          [day, value] = getnum(value, std.kind === 'ZeroDay');
          break;
        case 'UnderYearDay':
        case 'ZeroYearDay':
          for (let i = 0; i < 2; i++) if (std.kind === 'UnderYearDay' && value[0] === ' ') value = value.slice(1);
          [yday, value] = getnum3(value, std.kind === 'ZeroYearDay');
          break;
        case 'Hour':
          [hour, value] = getnum(value, false);
          if (hour >= 24) rangeErr = 'hour';
          break;
        case 'Hour12':
        case 'ZeroHour12':
          [hour, value] = getnum(value, std.kind === 'ZeroHour12');
          if (hour > 12) rangeErr = 'hour';
          break;
        case 'Minute':
        case 'ZeroMinute':
          [min, value] = getnum(value, std.kind === 'ZeroMinute');
          if (min >= 60) rangeErr = 'minute';
          break;
        case 'Second':
        case 'ZeroSecond': {
          [sec, value] = getnum(value, std.kind === 'ZeroSecond');
          if (sec >= 60) {
            rangeErr = 'second';
            break;
          }
          // A fractional second in the value that the layout does not mention.
          if (value.length >= 2 && commaOrPeriod(value[0]) && isDigitAt(value, 1)) {
            const next = nextChunk(layout).std;
            if (next !== null && (next.kind === 'FracSecond0' || next.kind === 'FracSecond9')) break;
            let n = 2;
            while (n < value.length && isDigitAt(value, n)) n++;
            const r = parseNanoseconds(value, n);
            nsec = r.ns;
            rangeErr = r.range;
            value = value.slice(n);
          }
          break;
        }
        case 'PM':
        case 'pm': {
          if (value.length < 2) throw BAD;
          const p = value.slice(0, 2);
          value = value.slice(2);
          if (p === (std.kind === 'PM' ? 'PM' : 'pm')) pmSet = true;
          else if (p === (std.kind === 'PM' ? 'AM' : 'am')) amSet = true;
          else throw BAD;
          break;
        }
        case 'TZ': {
          if (value.startsWith('UTC')) {
            utc = true;
            value = value.slice(3);
            break;
          }
          const n = parseTimeZone(value);
          if (n === 0) throw BAD;
          zoneName = value.slice(0, n);
          value = value.slice(n);
          break;
        }
        case 'FracSecond0': {
          const ndigit = 1 + std.digits;
          if (value.length < ndigit) throw BAD;
          const r = parseNanoseconds(value, ndigit);
          nsec = r.ns;
          rangeErr = r.range;
          value = value.slice(ndigit);
          break;
        }
        case 'FracSecond9': {
          if (value.length < 2 || !commaOrPeriod(value[0]) || !isDigitAt(value, 1)) break; // omitted
          let i = 0;
          while (i + 1 < value.length && isDigitAt(value, i + 1)) i++;
          const r = parseNanoseconds(value, 1 + i);
          nsec = r.ns;
          rangeErr = r.range;
          value = value.slice(1 + i);
          break;
        }
        default: {
          // Numeric zones; the ISO 8601 forms also accept "Z".
          if (std.kind.startsWith('ISO8601') && value[0] === 'Z') {
            value = value.slice(1);
            utc = true;
            break;
          }
          const zone = parseNumericZone(std.kind, value);
          zoneOffset = zone.offset;
          value = zone.rest;
          rangeErr = zone.range;
          if (zone.bad) throw BAD;
          break;
        }
      }
    } catch (e) {
      if (!(e instanceof Bad)) throw e;
      if (rangeErr !== '') throw parseError(alayout, avalue, text, value, `: ${rangeErr} out of range`);
      throw parseError(alayout, avalue, text, hold);
    }
    if (rangeErr !== '') throw parseError(alayout, avalue, text, value, `: ${rangeErr} out of range`);
  }

  if (pmSet && hour < 12) hour += 12;
  else if (amSet && hour === 12) hour = 0;

  if (yday >= 0) {
    let d = 0;
    let m = 0;
    if (isLeap(year)) {
      if (yday === 31 + 29) {
        m = 2;
        d = 29;
      } else if (yday > 31 + 29) {
        yday--;
      }
    }
    if (yday < 1 || yday > 365) throw parseError(alayout, avalue, '', value, ': day-of-year out of range');
    if (m === 0) {
      m = Math.floor((yday - 1) / 31) + 1;
      if (daysBefore(m + 1) < yday) m++;
      d = yday - daysBefore(m);
    }
    if (month >= 0 && month !== m) throw parseError(alayout, avalue, '', value, ': day-of-year does not match month');
    month = m;
    if (day >= 0 && day !== d) throw parseError(alayout, avalue, '', value, ': day-of-year does not match day');
    day = d;
  } else {
    if (month < 0) month = 1;
    if (day < 0) day = 1;
  }

  if (day < 1 || day > daysIn(month, year)) throw parseError(alayout, avalue, '', value, ': day out of range');

  return { year, month, day, hour, minute: min, second: sec, nanosecond: nsec, utc, zoneOffset, zoneName };
}

/** A numeric zone offset ("-0700", "+05:30", "-07", ...) at the start of `value`. */
function parseNumericZone(kind: Kind, value: string): { offset: number; rest: string; range: string; bad: boolean } {
  let hh: string;
  let mm = '00';
  let ss = '00';
  let rest: string;
  const sign = value.slice(0, 1);
  if (kind === 'ISO8601ColonTZ' || kind === 'NumColonTZ') {
    if (value.length < 6 || value[3] !== ':') throw BAD;
    [hh, mm, rest] = [value.slice(1, 3), value.slice(4, 6), value.slice(6)];
  } else if (kind === 'NumShortTZ' || kind === 'ISO8601ShortTZ') {
    if (value.length < 3) throw BAD;
    [hh, rest] = [value.slice(1, 3), value.slice(3)];
  } else if (kind === 'ISO8601ColonSecondsTZ' || kind === 'NumColonSecondsTZ') {
    if (value.length < 9 || value[3] !== ':' || value[6] !== ':') throw BAD;
    [hh, mm, ss, rest] = [value.slice(1, 3), value.slice(4, 6), value.slice(7, 9), value.slice(9)];
  } else if (kind === 'ISO8601SecondsTZ' || kind === 'NumSecondsTZ') {
    if (value.length < 7) throw BAD;
    [hh, mm, ss, rest] = [value.slice(1, 3), value.slice(3, 5), value.slice(5, 7), value.slice(7)];
  } else {
    if (value.length < 5) throw BAD;
    [hh, mm, rest] = [value.slice(1, 3), value.slice(3, 5), value.slice(5)];
  }
  // As in Go, a malformed field leaves the later ones at zero but range checks still run.
  let h = 0;
  let m = 0;
  let s = 0;
  let bad = false;
  try {
    h = getnum(hh, true)[0];
    m = getnum(mm, true)[0];
    s = getnum(ss, true)[0];
  } catch {
    bad = true;
  }
  let range = '';
  // Offsets of 24 hours or 60 minutes/seconds are written in the wild, so Go uses > rather than >=.
  if (h > 24) range = 'time zone offset hour';
  if (m > 60) range = 'time zone offset minute';
  if (s > 60) range = 'time zone offset second';
  const offset = (h * 60 + m) * 60 + s;
  return { offset: sign === '-' ? -offset : offset, rest, range, bad: bad || (sign !== '+' && sign !== '-') };
}
