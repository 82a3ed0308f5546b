/**
 * Go reference-time layouts ("2006-01-02T15:04:05Z07:00") for time.format
 * and time.parse_ns: the layout tokenizer (Go's `nextStdChunk`) and
 * formatting (Go's `Time.Format`). Parsing is in time-parse.ts.
 */
import type { CivilTime } from './time-zone.js';

/** The layout constants OPA accepts by name in time.parse_ns and time.format. */
export const NAMED_LAYOUTS: Readonly<Record<string, string>> = {
  ANSIC: 'Mon Jan _2 15:04:05 2006',
  UnixDate: 'Mon Jan _2 15:04:05 MST 2006',
  RubyDate: 'Mon Jan 02 15:04:05 -0700 2006',
  RFC822: '02 Jan 06 15:04 MST',
  RFC822Z: '02 Jan 06 15:04 -0700',
  RFC850: 'Monday, 02-Jan-06 15:04:05 MST',
  RFC1123: 'Mon, 02 Jan 2006 15:04:05 MST',
  RFC1123Z: 'Mon, 02 Jan 2006 15:04:05 -0700',
  RFC3339: '2006-01-02T15:04:05Z07:00',
  RFC3339Nano: '2006-01-02T15:04:05.999999999Z07:00',
};

export const RFC3339_NANO = '2006-01-02T15:04:05.999999999Z07:00';

export type Kind =
  | 'LongMonth'
  | 'Month'
  | 'NumMonth'
  | 'ZeroMonth'
  | 'LongWeekDay'
  | 'WeekDay'
  | 'Day'
  | 'UnderDay'
  | 'ZeroDay'
  | 'UnderYearDay'
  | 'ZeroYearDay'
  | 'Hour'
  | 'Hour12'
  | 'ZeroHour12'
  | 'Minute'
  | 'ZeroMinute'
  | 'Second'
  | 'ZeroSecond'
  | 'LongYear'
  | 'Year'
  | 'PM'
  | 'pm'
  | 'TZ'
  | 'ISO8601TZ'
  | 'ISO8601SecondsTZ'
  | 'ISO8601ShortTZ'
  | 'ISO8601ColonTZ'
  | 'ISO8601ColonSecondsTZ'
  | 'NumTZ'
  | 'NumSecondsTZ'
  | 'NumShortTZ'
  | 'NumColonTZ'
  | 'NumColonSecondsTZ'
  | 'FracSecond0'
  | 'FracSecond9';

export interface Std {
  kind: Kind;
  /** Digits of a fractional-second element. */
  digits: number;
}

export interface Chunk {
  prefix: string;
  std: Std | null;
  /** The layout text of the element. */
  text: string;
  suffix: string;
}

const ZERO_X: Kind[] = ['ZeroMonth', 'ZeroDay', 'ZeroHour12', 'ZeroMinute', 'ZeroSecond', 'Year'];

/** Numeric zone elements after their '-' or 'Z', longest first as Go matches them. */
const NUMERIC_ZONES: ReadonlyArray<readonly [string, string]> = [
  ['070000', 'SecondsTZ'],
  ['07:00:00', 'ColonSecondsTZ'],
  ['0700', 'TZ'],
  ['07:00', 'ColonTZ'],
  ['07', 'ShortTZ'],
];

export function isDigitAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
}

function startsWithLower(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 97 && c <= 122;
}

/** Splits off the first layout element: the literal text before it, the element, and the rest. */
export function nextChunk(layout: string): Chunk {
  const at = (i: number, kind: Kind, len: number, start = i): Chunk => ({
    prefix: layout.slice(0, start),
    std: { kind, digits: 0 },
    text: layout.slice(start, i + len),
    suffix: layout.slice(i + len),
  });
  for (let i = 0; i < layout.length; i++) {
    const c = layout[i];
    switch (c) {
      case 'J':
        if (layout.startsWith('Jan', i)) {
          if (layout.startsWith('January', i)) return at(i, 'LongMonth', 7);
          if (!startsWithLower(layout, i + 3)) return at(i, 'Month', 3);
        }
        break;
      case 'M':
        if (layout.startsWith('Mon', i)) {
          if (layout.startsWith('Monday', i)) return at(i, 'LongWeekDay', 6);
          if (!startsWithLower(layout, i + 3)) return at(i, 'WeekDay', 3);
        }
        if (layout.startsWith('MST', i)) return at(i, 'TZ', 3);
        break;
      case '0': {
        const d = layout.charCodeAt(i + 1) - 49;
        if (d >= 0 && d <= 5) return at(i, ZERO_X[d] as Kind, 2);
        if (layout.startsWith('002', i)) return at(i, 'ZeroYearDay', 3);
        break;
      }
      case '1':
        if (layout[i + 1] === '5') return at(i, 'Hour', 2);
        return at(i, 'NumMonth', 1);
      case '2':
        if (layout.startsWith('2006', i)) return at(i, 'LongYear', 4);
        return at(i, 'Day', 1);
      case '_':
        if (layout[i + 1] === '2') {
          // "_2006" is a literal underscore followed by the year.
          if (layout.startsWith('2006', i + 1)) return at(i + 1, 'LongYear', 4);
          return at(i, 'UnderDay', 2);
        }
        if (layout.startsWith('__2', i)) return at(i, 'UnderYearDay', 3);
        break;
      case '3':
        return at(i, 'Hour12', 1);
      case '4':
        return at(i, 'Minute', 1);
      case '5':
        return at(i, 'Second', 1);
      case 'P':
        if (layout[i + 1] === 'M') return at(i, 'PM', 2);
        break;
      case 'p':
        if (layout[i + 1] === 'm') return at(i, 'pm', 2);
        break;
      case '-':
      case 'Z':
        for (const [pattern, kind] of NUMERIC_ZONES) {
          if (layout.startsWith(pattern, i + 1)) {
            return at(i, ((c === '-' ? 'Num' : 'ISO8601') + kind) as Kind, pattern.length + 1);
          }
        }
        break;
      case '.':
      case ',': {
        const ch = layout[i + 1];
        if (ch === '0' || ch === '9') {
          let j = i + 1;
          while (j < layout.length && layout[j] === ch) j++;
          // The run of digits must end here: only a fractional second is all digits.
          if (!isDigitAt(layout, j)) {
            return {
              prefix: layout.slice(0, i),
              std: { kind: ch === '0' ? 'FracSecond0' : 'FracSecond9', digits: j - (i + 1) },
              text: layout.slice(i, j),
              suffix: layout.slice(j),
            };
          }
        }
        break;
      }
      default:
        break;
    }
  }
  return { prefix: layout, std: null, text: '', suffix: '' };
}

export const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
export const SHORT_DAYS = LONG_DAYS.map((d) => d.slice(0, 3));
export const LONG_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
export const SHORT_MONTHS = LONG_MONTHS.map((m) => m.slice(0, 3));

export function weekdayName(weekday: number): string {
  return LONG_DAYS[weekday] as string;
}

/** Go's appendInt: optional '-', then the magnitude zero-padded to `width`. */
function pad(x: number, width: number): string {
  const s = String(Math.abs(x)).padStart(width, '0');
  return x < 0 ? '-' + s : s;
}

function formatZone(kind: Kind, offset: number): string {
  const iso = kind.startsWith('ISO8601');
  if (offset === 0 && iso) return 'Z';
  let zone = Math.trunc(offset / 60);
  let abs = offset;
  let out = '+';
  if (zone < 0) {
    out = '-';
    zone = -zone;
    abs = -abs;
  }
  out += pad(Math.floor(zone / 60), 2);
  const colon = kind.endsWith('ColonTZ') || kind.endsWith('ColonSecondsTZ');
  if (colon) out += ':';
  if (!kind.endsWith('ShortTZ')) out += pad(zone % 60, 2);
  if (kind.endsWith('SecondsTZ')) {
    if (kind.endsWith('ColonSecondsTZ')) out += ':';
    out += pad(abs % 60, 2);
  }
  return out;
}

function formatNanos(nanos: number, std: Std, sep: string): string {
  const trim = std.kind === 'FracSecond9';
  if (trim && (std.digits === 0 || nanos === 0)) return '';
  let digits = pad(nanos, 9);
  if (std.digits < 9) digits = digits.slice(0, std.digits);
  if (trim) digits = digits.replace(/0+$/, '');
  return digits === '' ? '' : sep + digits;
}

/**
 * Go's `Time.Format`: `t` is the broken-down time in its zone, `zoneName`
 * the zone abbreviation printed for "MST" ("" prints the numeric offset).
 */
export function formatTime(t: CivilTime, zoneName: string, layout: string): string {
  let out = '';
  let rest = layout;
  while (rest !== '') {
    const { prefix, std, text, suffix } = nextChunk(rest);
    out += prefix;
    if (std === null) break;
    rest = suffix;
    switch (std.kind) {
      case 'Year':
        out += pad(Math.abs(t.year) % 100, 2);
        break;
      case 'LongYear':
        out += pad(t.year, 4);
        break;
      case 'Month':
        out += SHORT_MONTHS[t.month - 1];
        break;
      case 'LongMonth':
        out += LONG_MONTHS[t.month - 1];
        break;
      case 'NumMonth':
        out += String(t.month);
        break;
      case 'ZeroMonth':
        out += pad(t.month, 2);
        break;
      case 'WeekDay':
        out += SHORT_DAYS[t.weekday];
        break;
      case 'LongWeekDay':
        out += LONG_DAYS[t.weekday];
        break;
      case 'Day':
        out += String(t.day);
        break;
      case 'UnderDay':
        out += (t.day < 10 ? ' ' : '') + String(t.day);
        break;
      case 'ZeroDay':
        out += pad(t.day, 2);
        break;
      case 'UnderYearDay':
        out += String(t.yday).padStart(3, ' ');
        break;
      case 'ZeroYearDay':
        out += pad(t.yday, 3);
        break;
      case 'Hour':
        out += pad(t.hour, 2);
        break;
      case 'Hour12':
        out += String(t.hour % 12 === 0 ? 12 : t.hour % 12);
        break;
      case 'ZeroHour12':
        out += pad(t.hour % 12 === 0 ? 12 : t.hour % 12, 2);
        break;
      case 'Minute':
        out += String(t.minute);
        break;
      case 'ZeroMinute':
        out += pad(t.minute, 2);
        break;
      case 'Second':
        out += String(t.second);
        break;
      case 'ZeroSecond':
        out += pad(t.second, 2);
        break;
      case 'PM':
        out += t.hour >= 12 ? 'PM' : 'AM';
        break;
      case 'pm':
        out += t.hour >= 12 ? 'pm' : 'am';
        break;
      case 'TZ':
        out += zoneName !== '' ? zoneName : formatZone('NumTZ', t.offset);
        break;
      case 'FracSecond0':
      case 'FracSecond9':
        out += formatNanos(t.nanosecond, std, text[0] as string);
        break;
      default:
        out += formatZone(std.kind, t.offset);
        break;
    }
  }
  return out;
}

/** Go's time-package `quote`: non-ASCII and control characters as \x escapes of their UTF-8 bytes. */
export function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (c >= 0x80 || c < 0x20) {
      for (const b of Buffer.from(ch, 'utf8')) out += '\\x' + b.toString(16).padStart(2, '0');
    } else {
      if (ch === '"' || ch === '\\') out += '\\';
      out += ch;
    }
  }
  return out + '"';
}
