/**
 * What each filter target can express, as OPA v1's compile API defines it:
 * the builtins and features (negation, field-to-field comparison, existence
 * checks) a target and dialect accept. Several targets at once (the
 * multitarget form) accept only what every one of them accepts.
 */
import { PartialError } from '../partial/partial-eval.js';

export type Target = 'sql' | 'ucast';
export const SQL_DIALECTS = ['postgresql', 'mysql', 'sqlserver', 'sqlite'] as const;
export const UCAST_DIALECTS = ['all', 'minimal', 'prisma', 'linq'] as const;

const UCAST_BUILTINS = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte'];
const ALL_BUILTINS = [...UCAST_BUILTINS, 'internal.member_2', 'startswith', 'endswith', 'contains'];
/** SQLite has no LIKE-based string matching here (OPA's choice). */
const SQLITE_BUILTINS = [...UCAST_BUILTINS, 'internal.member_2'];
const LINQ_BUILTINS = [...UCAST_BUILTINS, 'internal.member_2'];

export interface Constraint {
  target: Target;
  dialect: string;
  /** `SQL (sqlite)`, `UCAST (LINQ)`, `UCAST`: how OPA names it in errors. */
  label: string;
  builtins: ReadonlySet<string>;
  features: ReadonlySet<string>;
}

/** The constraint of one target/dialect pair; an unknown pair is an error. */
export function constraintFor(target: string, dialect: string): Constraint {
  if (target === 'sql') {
    const d = dialect.toLowerCase();
    if (!(SQL_DIALECTS as readonly string[]).includes(d)) throw new PartialError('invalid_parameter', `unsupported variant for sql: ${dialect}`, undefined);
    return {
      target,
      dialect: d,
      label: `SQL (${dialect})`,
      builtins: new Set(d === 'sqlite' ? SQLITE_BUILTINS : ALL_BUILTINS),
      features: new Set(['not', 'field-ref', 'existence-ref']),
    };
  }
  if (target === 'ucast') {
    const d = dialect.toLowerCase();
    if (d === 'all') return { target, dialect: d, label: 'UCAST (all)', builtins: new Set(ALL_BUILTINS), features: new Set(['not', 'field-ref']) };
    if (d === 'prisma') return { target, dialect: d, label: 'UCAST (prisma)', builtins: new Set(ALL_BUILTINS), features: new Set(['not']) };
    if (d === 'linq') return { target, dialect: d, label: 'UCAST (LINQ)', builtins: new Set(LINQ_BUILTINS), features: new Set() };
    return { target, dialect: d, label: 'UCAST', builtins: new Set(UCAST_BUILTINS), features: new Set() };
  }
  throw new PartialError('invalid_parameter', `unknown target/dialect combination: ${target}/${dialect}`, undefined);
}

/** Undefined when every constraint allows the builtin, else each refusal on its own line (Go's errors.Join). */
export function refuseBuiltin(cs: readonly Constraint[], name: string): string | undefined {
  const errs = cs.filter((c) => !c.builtins.has(name)).map((c) => `unsupported for ${c.label}`);
  return errs.length === 0 ? undefined : errs.join('\n');
}

export function refuseFeature(cs: readonly Constraint[], feature: string): string | undefined {
  const errs = cs.filter((c) => !c.features.has(feature)).map((c) => `unsupported feature ${JSON.stringify(feature)} for ${c.label}`);
  return errs.length === 0 ? undefined : errs.join('\n');
}
