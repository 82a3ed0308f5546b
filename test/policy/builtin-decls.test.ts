/**
 * OPA's builtin declarations are parsed when the checker first asks for one
 * (runtime/policy/compiler/builtin-decls.ts): a table entry the type parser
 * cannot read must still fail here, not in the one policy that calls it.
 */
import { describe, expect, it } from 'vitest';
import { builtinDecl } from '../../runtime/policy/compiler/builtin-decls.js';
import { OPA_BUILTIN_DECLS } from '../../runtime/policy/compiler/builtin-decls-table.js';

describe('builtin declarations', () => {
  it.each(OPA_BUILTIN_DECLS.map(([name, want]) => [name, want]))('%s parses: %s', (name, want) => {
    const decl = builtinDecl(name);
    expect(decl?.want).toBe(want);
    // The arguments, then the result: at least the result, each a parsed type.
    expect(decl?.types.length).toBeGreaterThan(0);
    for (const type of decl?.types ?? []) expect(type).toMatchObject({ kind: expect.any(String) });
    expect(builtinDecl(name)).toBe(decl);
  });

  it('has no declaration for a name OPA does not declare', () => {
    expect(builtinDecl('no.such.builtin')).toBeUndefined();
  });
});
