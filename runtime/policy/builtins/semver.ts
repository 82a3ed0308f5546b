/**
 * Semantic version builtins: semver.is_valid and semver.compare.
 *
 * Parsing follows OPA 1.x (internal/semver), which is looser than the
 * SemVer 2.0.0 grammar: one leading "v" is dropped, numeric parts may have
 * leading zeros, and an empty pre-release or build part ("1.2.3-", "1.2.3+")
 * is accepted. Build metadata is ignored when comparing.
 */
import { asString, BuiltinError, type BuiltinDefinition } from './registry.js';
import { goQuote } from '../value-format.js';

interface Version {
  major: bigint;
  minor: bigint;
  patch: bigint;
  preRelease: string;
}

const IDENTIFIERS = /^[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*$/;
const INT64_MAX = (1n << 63n) - 1n;

/** The text before and after the first `sep` (all of it and "" when absent). */
function cut(s: string, sep: string): [string, string] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, ''] : [s.slice(0, i), s.slice(i + 1)];
}

/** A base-10 int64 without sign (the parts cannot contain one once '+' and '-' are cut off). */
function versionNumber(s: string): bigint | null {
  if (!/^\d+$/.test(s)) return null;
  const n = BigInt(s);
  return n > INT64_MAX ? null : n;
}

/** Parses a version; null when it is not valid. */
export function parseVersion(text: string): Version | null {
  let version = text.startsWith('v') ? text.slice(1) : text;
  let metadata: string;
  [version, metadata] = cut(version, '+');
  if (metadata !== '' && !IDENTIFIERS.test(metadata)) return null;
  let preRelease: string;
  [version, preRelease] = cut(version, '-');
  if (preRelease !== '' && !IDENTIFIERS.test(preRelease)) return null;
  const parts = version.split('.');
  if (parts.length !== 3) return null;
  const [major, minor, patch] = parts.map(versionNumber);
  if (major == null || minor == null || patch == null) return null;
  return { major, minor, patch, preRelease };
}

function cmp<T extends bigint | string>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A numeric pre-release identifier as Go's strconv.Atoi reads it (saturating at int64). */
function identifierNumber(s: string): bigint {
  const n = BigInt(s);
  return n > INT64_MAX ? INT64_MAX : n;
}

/** SemVer precedence: -1, 0 or 1. */
export function compareVersions(a: Version, b: Version): number {
  const c = cmp(a.major, b.major) || cmp(a.minor, b.minor) || cmp(a.patch, b.patch);
  if (c !== 0) return c;
  if (a.preRelease === b.preRelease) return 0;
  // A version without a pre-release is greater than the same version with one.
  if (a.preRelease === '') return 1;
  if (b.preRelease === '') return -1;
  const xs = a.preRelease.split('.');
  const ys = b.preRelease.split('.');
  for (let i = 0; ; i++) {
    const x = xs[i];
    const y = ys[i];
    if (x === undefined) return y === undefined ? 0 : -1;
    if (y === undefined) return 1;
    const xNum = /^\d+$/.test(x);
    const yNum = /^\d+$/.test(y);
    // Numeric identifiers have lower precedence than alphanumeric ones.
    if (xNum !== yNum) return xNum ? -1 : 1;
    const d = xNum ? cmp(identifierNumber(x), identifierNumber(y)) : cmp(x, y);
    if (d !== 0) return d;
  }
}

export const semverBuiltins: BuiltinDefinition[] = [
  {
    name: 'semver.is_valid',
    args: ['any'],
    result: 'boolean',
    impl: ([v]) => typeof v === 'string' && parseVersion(v) !== null,
  },
  {
    name: 'semver.compare',
    args: ['string', 'string'],
    result: 'number',
    impl: ([a, b]) => {
      const x = asString(a, 1);
      const y = asString(b, 2);
      const va = parseVersion(x);
      if (va === null) throw new BuiltinError(`operand 1: string ${goQuote(x)} is not a valid SemVer`);
      const vb = parseVersion(y);
      if (vb === null) throw new BuiltinError(`operand 2: string ${goQuote(y)} is not a valid SemVer`);
      return compareVersions(va, vb);
    },
  },
];
