/**
 * Civil time for the time builtins: time zones (Go's `time.LoadLocation`
 * names, resolved through `Intl`), UTC offsets, zone abbreviations and the
 * proleptic Gregorian calendar on whole seconds.
 *
 * Instants are nanoseconds since the epoch as `bigint`; calendar arithmetic
 * works on whole days and seconds as JS numbers (exact far beyond the int64
 * nanosecond range the builtins accept).
 */
import { BuiltinError } from './registry.js';

/** A location, like Go's `*time.Location`: UTC, the process's local zone, or an IANA zone. */
export interface Zone {
  /** Identity of the location (two zones with the same key are the same location). */
  readonly key: string;
  /** IANA name used with `Intl`, or null for UTC. */
  readonly tz: string | null;
}

export const UTC_ZONE: Zone = { key: 'UTC', tz: null };

/** Broken-down time of an instant in a zone (Go's `Date`, `Clock`, `YearDay`, `Weekday`). */
export interface CivilTime {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  nanosecond: number;
  /** Day of the year, 1-366. */
  yday: number;
  /** 0 = Sunday. */
  weekday: number;
  /** Seconds east of UTC. */
  offset: number;
  /** Seconds since the epoch (whole, floored). */
  unixSec: number;
}

export const NS_PER_SEC = 1_000_000_000n;
const SECONDS_PER_DAY = 86_400;
/** Instants `Intl` can look up (the JS Date range), in seconds. */
const MAX_INTL_SECONDS = 8.64e12;

// ---------------------------------------------------------------------------
// Calendar

/** Days since 1970-01-01 of a proleptic Gregorian date; month may be outside 1-12 only via the caller. */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** The date of a day number (days since 1970-01-01). */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

export function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

const DAYS_BEFORE = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365];

/** Days in the month (1-12) of the year. */
export function daysIn(month: number, year: number): number {
  if (month === 2 && isLeap(year)) return 29;
  return (DAYS_BEFORE[month] as number) - (DAYS_BEFORE[month - 1] as number);
}

/** Days before the first of the month (1-13) in a non-leap year. */
export function daysBefore(month: number): number {
  return DAYS_BEFORE[month - 1] as number;
}

export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

// ---------------------------------------------------------------------------
// Zones

const zones = new Map<string, Zone>();
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** The IANA name `Intl` resolves `name` to, or null when it does not know it. */
function intlZone(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** Zone database names are case-sensitive in Go; `Intl` is not. */
function plausibleName(name: string, resolved: string): boolean {
  if (name.toLowerCase() === resolved.toLowerCase()) return name === resolved;
  // An alias (US/Eastern, Asia/Kolkata, EST): every path segment starts with a capital letter.
  return name.split('/').every((seg) => /^[A-Z]/.test(seg));
}

/**
 * Go's `time.LoadLocation` as OPA uses it: "" and "UTC" are UTC, "Local" is
 * the process's zone, anything else an IANA zone name.
 * Throws `unknown time zone NAME` (Go's message) for names the zone database lacks.
 */
export function loadZone(name: string): Zone {
  if (name === '' || name === 'UTC') return UTC_ZONE;
  if (name === 'Local') {
    // Resolved when used, not at import time: TZ may change between queries.
    const local = new Intl.DateTimeFormat().resolvedOptions().timeZone;
    return { key: 'Local', tz: local === 'UTC' || local === 'Etc/UTC' ? null : local };
  }
  const cached = zones.get(name);
  if (cached !== undefined) return cached;
  const resolved = name.startsWith('+') || name.startsWith('-') ? null : intlZone(name);
  if (resolved === null || !plausibleName(name, resolved)) throw new BuiltinError(`unknown time zone ${name}`);
  const zone: Zone = { key: name, tz: resolved };
  zones.set(name, zone);
  return zone;
}

/** Seconds east of UTC in effect in the zone at the instant `unixSec`. */
export function offsetAt(zone: Zone, unixSec: number): number {
  if (zone.tz === null) return 0;
  // Beyond the Date range every result is outside int64 nanoseconds anyway.
  if (unixSec > MAX_INTL_SECONDS || unixSec < -MAX_INTL_SECONDS) return 0;
  const parts = formatter(zone.tz).formatToParts(new Date(unixSec * 1000));
  let year = 0;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let bc = false;
  for (const p of parts) {
    switch (p.type) {
      case 'year':
        year = Number(p.value);
        break;
      case 'month':
        month = Number(p.value);
        break;
      case 'day':
        day = Number(p.value);
        break;
      case 'hour':
        hour = Number(p.value);
        break;
      case 'minute':
        minute = Number(p.value);
        break;
      case 'second':
        second = Number(p.value);
        break;
      case 'era':
        bc = p.value === 'BC' || p.value === 'B';
        break;
      default:
        break;
    }
  }
  if (bc) year = 1 - year;
  const wall = daysFromCivil(year, month, day) * SECONDS_PER_DAY + hour * 3600 + minute * 60 + second;
  return wall - unixSec;
}

/**
 * The instant whose wall clock in the zone reads `wallSec` (seconds since the
 * epoch as if the wall clock were UTC), resolved as Go's `time.Date` does
 * around transitions.
 */
export function wallToUnix(zone: Zone, wallSec: number): number {
  const guess = offsetAt(zone, wallSec);
  if (guess === 0) return wallSec;
  return wallSec - offsetAt(zone, wallSec - guess);
}

// Abbreviations Go's zone database uses where Intl's en-US names fall back to "GMT+1".
// Keyed by IANA name, then by offset in seconds.
const CET = { 3600: 'CET', 7200: 'CEST' };
const EET = { 7200: 'EET', 10800: 'EEST' };
const WET = { 0: 'WET', 3600: 'WEST' };
const AEST = { 36000: 'AEST', 39600: 'AEDT' };
const ACST = { 34200: 'ACST', 37800: 'ACDT' };
const ABBREVIATIONS: Record<string, Record<number, string>> = {};
function abbrevs(names: string, table: Record<number, string>): void {
  for (const n of names.split(' ')) ABBREVIATIONS[n] = table;
}
abbrevs(
  'CET Europe/Amsterdam Europe/Andorra Europe/Belgrade Europe/Berlin Europe/Bratislava Europe/Brussels Europe/Budapest ' +
    'Europe/Busingen Europe/Copenhagen Europe/Gibraltar Europe/Ljubljana Europe/Luxembourg Europe/Madrid Europe/Malta ' +
    'Europe/Monaco Europe/Oslo Europe/Paris Europe/Podgorica Europe/Prague Europe/Rome Europe/San_Marino Europe/Sarajevo ' +
    'Europe/Skopje Europe/Stockholm Europe/Tirane Europe/Vaduz Europe/Vatican Europe/Vienna Europe/Warsaw Europe/Zagreb ' +
    'Europe/Zurich Africa/Ceuta Arctic/Longyearbyen Africa/Algiers Africa/Tunis Poland',
  CET,
);
abbrevs(
  'EET Europe/Athens Europe/Bucharest Europe/Chisinau Europe/Helsinki Europe/Kiev Europe/Kyiv Europe/Mariehamn Europe/Riga ' +
    'Europe/Sofia Europe/Tallinn Europe/Uzhgorod Europe/Vilnius Europe/Zaporozhye Europe/Kaliningrad Europe/Nicosia ' +
    'Asia/Nicosia Asia/Famagusta Asia/Beirut Asia/Gaza Asia/Hebron Africa/Cairo Africa/Tripoli Egypt Libya',
  EET,
);
abbrevs('WET Europe/Lisbon Portugal Atlantic/Canary Atlantic/Faroe Atlantic/Faeroe Atlantic/Madeira', WET);
abbrevs('Europe/London Europe/Jersey Europe/Guernsey Europe/Isle_of_Man Europe/Belfast GB GB-Eire', { 0: 'GMT', 3600: 'BST' });
abbrevs('Europe/Dublin Eire', { 0: 'GMT', 3600: 'IST' });
abbrevs('Europe/Moscow Europe/Simferopol Europe/Volgograd Europe/Kirov W-SU', { 10800: 'MSK' });
abbrevs('Asia/Kolkata Asia/Calcutta', { 19800: 'IST' });
abbrevs('Asia/Jerusalem Asia/Tel_Aviv Israel', { 7200: 'IST', 10800: 'IDT' });
abbrevs('Asia/Shanghai Asia/Chongqing Asia/Chungking Asia/Harbin Asia/Taipei Asia/Macau Asia/Macao PRC ROC', { 28800: 'CST' });
abbrevs('Asia/Hong_Kong Hongkong', { 28800: 'HKT' });
abbrevs('Asia/Tokyo Japan', { 32400: 'JST' });
abbrevs('Asia/Seoul Asia/Pyongyang ROK', { 32400: 'KST' });
abbrevs('Asia/Jakarta Asia/Pontianak', { 25200: 'WIB' });
abbrevs('Asia/Makassar Asia/Ujung_Pandang', { 28800: 'WITA' });
abbrevs('Asia/Jayapura', { 32400: 'WIT' });
abbrevs('Asia/Karachi', { 18000: 'PKT' });
abbrevs('Asia/Manila', { 28800: 'PST' });
abbrevs(
  'Australia/Sydney Australia/Melbourne Australia/Hobart Australia/Canberra Australia/ACT Australia/NSW ' +
    'Australia/Victoria Australia/Tasmania Australia/Currie Australia/Brisbane Australia/Lindeman Australia/Queensland',
  AEST,
);
abbrevs('Australia/Adelaide Australia/Broken_Hill Australia/South Australia/Yancowinna Australia/Darwin Australia/North', ACST);
abbrevs('Australia/Perth Australia/West', { 28800: 'AWST' });
abbrevs('Pacific/Auckland Antarctica/McMurdo Antarctica/South_Pole NZ', { 43200: 'NZST', 46800: 'NZDT' });
abbrevs('Pacific/Guam Pacific/Saipan', { 36000: 'ChST' });
abbrevs('Africa/Johannesburg Africa/Maseru Africa/Mbabane', { 7200: 'SAST' });
abbrevs(
  'Africa/Lagos Africa/Kinshasa Africa/Luanda Africa/Douala Africa/Libreville Africa/Malabo Africa/Niamey Africa/Porto-Novo ' +
    'Africa/Bangui Africa/Brazzaville Africa/Ndjamena',
  { 3600: 'WAT' },
);
abbrevs(
  'Africa/Maputo Africa/Harare Africa/Lusaka Africa/Lubumbashi Africa/Blantyre Africa/Bujumbura Africa/Gaborone Africa/Kigali ' +
    'Africa/Windhoek Africa/Khartoum Africa/Juba',
  { 7200: 'CAT' },
);
abbrevs(
  'Africa/Nairobi Africa/Addis_Ababa Africa/Asmara Africa/Asmera Africa/Dar_es_Salaam Africa/Djibouti Africa/Kampala ' +
    'Africa/Mogadishu Indian/Antananarivo Indian/Comoro Indian/Mayotte',
  { 10800: 'EAT' },
);
abbrevs('America/St_Johns Canada/Newfoundland', { [-12600]: 'NST', [-9000]: 'NDT' });
abbrevs('America/Havana Cuba', { [-18000]: 'CST', [-14400]: 'CDT' });

const shortNames = new Map<string, Intl.DateTimeFormat>();

/** The abbreviation `Intl` gives in en-US when it is a real one (EST, PDT, GMT), else null. */
function intlAbbrev(tz: string, unixSec: number): string | null {
  if (unixSec > MAX_INTL_SECONDS || unixSec < -MAX_INTL_SECONDS) return null;
  let f = shortNames.get(tz);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'short' });
    shortNames.set(tz, f);
  }
  const name = f.formatToParts(new Date(unixSec * 1000)).find((p) => p.type === 'timeZoneName')?.value;
  return name !== undefined && /^[A-Z]{2,5}$/.test(name) ? name : null;
}

/** Numeric abbreviation in the zone database's style: "+04", "-03", "+0530". */
function numericAbbrev(offset: number): string {
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const h = Math.floor(abs / 3600);
  const m = Math.floor((abs % 3600) / 60);
  return sign + String(h).padStart(2, '0') + (m === 0 ? '' : String(m).padStart(2, '0'));
}

/**
 * Zone abbreviation at an instant. Go reads it from the zone database; Intl
 * does not expose that, so this combines Intl's en-US names, a table of common
 * zones and the database's numeric style for the rest (an approximation).
 */
export function abbreviation(zone: Zone, unixSec: number, offset: number): string {
  if (zone.tz === null) return 'UTC';
  const table = ABBREVIATIONS[zone.tz] ?? ABBREVIATIONS[zone.key];
  const fromTable = table?.[offset];
  if (fromTable !== undefined) return fromTable;
  return intlAbbrev(zone.tz, unixSec) ?? numericAbbrev(offset);
}

/** Broken-down time of the instant `ns` in the zone. */
export function civilTime(ns: bigint, zone: Zone): CivilTime {
  const secBig = floorDiv(ns, NS_PER_SEC);
  const nanosecond = Number(ns - secBig * NS_PER_SEC);
  const sec = Number(secBig);
  const offset = offsetAt(zone, sec);
  const local = sec + offset;
  const days = Math.floor(local / SECONDS_PER_DAY);
  const secOfDay = local - days * SECONDS_PER_DAY;
  const { year, month, day } = civilFromDays(days);
  return {
    year,
    month,
    day,
    hour: Math.floor(secOfDay / 3600),
    minute: Math.floor((secOfDay % 3600) / 60),
    second: secOfDay % 60,
    nanosecond,
    yday: days - daysFromCivil(year, 1, 1) + 1,
    weekday: (((days + 4) % 7) + 7) % 7,
    offset,
    unixSec: sec,
  };
}
