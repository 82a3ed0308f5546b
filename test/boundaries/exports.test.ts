import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from './source-imports.js';

/** The package's entry points: subpath → source file. */
const ENTRIES: Record<string, string> = {
  '.': 'runtime/index.ts',
  './a2a': 'runtime/a2a/index.ts',
  './policy': 'runtime/policy/index.ts',
  './semantic': 'runtime/semantic/index.ts',
  './memory': 'runtime/memory/index.ts',
  './model': 'runtime/model/index.ts',
  './planning': 'runtime/planning/index.ts',
  './guardian': 'runtime/guardian/index.ts',
  './http': 'runtime/http/index.ts',
  './testing': 'runtime/testing/index.ts',
};

/** Every name an entry point exports, `type X` for type-only ones, sorted; a wildcard export is an error. */
function exportedNames(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement)) throw new Error(`${file}: only \`export { … } from\` statements belong in an entry point`);
    const clause = statement.exportClause;
    if (!clause || !ts.isNamedExports(clause)) throw new Error(`${file}: wildcard export; export names one by one`);
    for (const element of clause.elements) {
      const typeOnly = statement.isTypeOnly || element.isTypeOnly;
      names.push(`${typeOnly ? 'type ' : ''}${element.name.text}`);
    }
  }
  return names.sort((a, b) => a.replace(/^type /, '').localeCompare(b.replace(/^type /, '')));
}

describe('public surface', () => {
  it('package.json exports exactly these entry points, each built from its source', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    const declared = Object.fromEntries(Object.entries(pkg.exports).filter(([key]) => key !== './package.json'));
    const expected = Object.fromEntries(
      Object.entries(ENTRIES).map(([key, file]) => {
        const built = `./dist/${file.replace(/\.ts$/, '')}`;
        return [key, { types: `${built}.d.ts`, import: `${built}.js` }];
      }),
    );
    expect(declared).toEqual(expected);
  });

  for (const [subpath, file] of Object.entries(ENTRIES)) {
    it(`framework_core${subpath === '.' ? '' : subpath.slice(1)} exports what its snapshot lists`, async () => {
      const names = exportedNames(file);
      expect(new Set(names).size).toBe(names.length);
      const name = subpath === '.' ? 'root' : subpath.slice(2);
      await expect(`${names.join('\n')}\n`).toMatchFileSnapshot(`./exports/${name}.txt`);
      // What the source says is what the module gives at run time.
      const module = (await import(join(ROOT, file))) as Record<string, unknown>;
      expect(Object.keys(module).sort()).toEqual(names.filter((n) => !n.startsWith('type ')).sort());
    });
  }
});
