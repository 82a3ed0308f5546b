import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const ROOT = resolve(import.meta.dirname, '../..');

/** Every .ts/.tsx file under `dir` (relative to the repository root), sorted. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(join(ROOT, at), { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
    }
  };
  walk(dir);
  return out.sort();
}

export interface SourceImport {
  from: string;
  /** Repository-relative path of the imported file, for relative imports; the bare specifier otherwise. */
  to: string;
  relative: boolean;
}

/** The imports of a file as TypeScript reads them: static, type-only, `export … from` and `import()` alike. */
export function importsOf(file: string): SourceImport[] {
  const info = ts.preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true);
  return info.importedFiles.map(({ fileName }) => {
    if (!fileName.startsWith('.')) return { from: file, to: fileName, relative: false };
    const target = relative(ROOT, resolve(ROOT, dirname(file), fileName)).replace(/\.js$/, '.ts');
    return { from: file, to: target, relative: true };
  });
}
