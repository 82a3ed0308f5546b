/**
 * Formatting files for `policy fmt`: the `.rego` files under the given
 * paths, each formatted, compared with its content, and (on request)
 * rewritten. Nothing is written when any file fails to parse.
 */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PolicyError } from '../errors.js';
import { formatRego } from './index.js';
import { unifiedDiff } from './line-diff.js';

export interface FormattedFile {
  file: string;
  /** The formatted text differs from the file's content. */
  changed: boolean;
  formatted: string;
  /** `diff -u` of the file against its formatted text (empty when unchanged). */
  diff: string;
}

export interface FormatFilesResult {
  files: FormattedFile[];
  /** Files that did not parse: nothing was written. */
  errors: PolicyError[];
}

/** The `.rego` files named or found (recursively, skipping dot directories and node_modules) under `paths`, sorted. */
export async function collectRegoFiles(options: { paths: string[] }): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.') && entry.name !== 'node_modules') await walk(path);
      } else if (entry.isFile() && entry.name.endsWith('.rego')) out.push(path);
    }
  };
  for (const p of options.paths) {
    if ((await stat(p)).isDirectory()) await walk(p);
    else out.push(p);
  }
  return [...new Set(out)].sort();
}

/** One Rego text formatted and compared with itself (`file` names it in positions and the diff); a parse error is returned, not thrown. */
export function formatSource(options: { source: string; file: string; v0ToV1?: boolean }): FormattedFile | PolicyError {
  const { source, file } = options;
  try {
    const formatted = formatRego({ source, file, ...(options.v0ToV1 === true ? { v0ToV1: true } : {}) });
    const changed = formatted !== source;
    return { file, changed, formatted, diff: changed ? unifiedDiff({ before: source, after: formatted, file }) : '' };
  } catch (e) {
    if (!PolicyError.isInstance(e)) throw e;
    return e;
  }
}

/** Formats each file; with `write`, rewrites the changed ones (only when every file parsed). */
export async function formatFiles(options: { paths: string[]; write?: boolean; v0ToV1?: boolean }): Promise<FormatFilesResult> {
  const files: FormattedFile[] = [];
  const errors: PolicyError[] = [];
  for (const file of await collectRegoFiles({ paths: options.paths })) {
    const result = formatSource({ source: await readFile(file, 'utf8'), file, ...(options.v0ToV1 === true ? { v0ToV1: true } : {}) });
    if (PolicyError.isInstance(result)) errors.push(result);
    else files.push(result);
  }
  if (options.write === true && errors.length === 0) {
    for (const f of files) if (f.changed) await writeFile(f.file, f.formatted);
  }
  return { files, errors };
}
