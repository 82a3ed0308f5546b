import { copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, posix, relative, sep } from 'node:path';
import { Eta } from 'eta';

/** Data every template gets as `it`, plus the helpers below. */
export type TemplateData = Readonly<Record<string, unknown>>;

/** Helpers available in every template as `it.h`. */
export const TEMPLATE_HELPERS = {
  /** A TypeScript string literal of `value`: single-quoted, or double-quoted when it holds a single quote. */
  str: (value: string): string => (value.includes("'") ? JSON.stringify(value) : `'${JSON.stringify(value).slice(1, -1).replace(/\\"/g, '"')}'`),
  /** `value` safe inside a one-line comment or JSDoc (no line breaks, no `*\/`). */
  comment: (value: string): string => value.replace(/\s+/g, ' ').replace(/\*\//g, '* /').trim(),
  /** A JSON value on one line. */
  json: (value: unknown): string => JSON.stringify(value),
};

export interface RenderTreeOptions {
  /** Absolute folder of the template tree (e.g. `<toolkit>/templates/agent`). */
  from: string;
  /** Absolute folder the files go to. */
  to: string;
  /** Root the returned paths are relative to. */
  root: string;
  data: TemplateData;
  /** `__token__` in file and folder names becomes its value (e.g. `{ name: 'helper' }`). */
  names?: Readonly<Record<string, string>>;
  /** Template paths (relative to `from`, `/`-separated, with their `.eta`) to leave out. */
  exclude?: readonly string[];
}

/**
 * Writes a template tree: a `*.eta` file is rendered with eta (`it` is
 * `data` plus `it.h`, the helpers) and written without its `.eta`; any other
 * file is copied as is. Returns the written paths relative to `root`, sorted,
 * with `/` separators. Files are not overwritten unless the caller checked.
 *
 * @example
 * await renderTree({ from: `${templates}/agent`, to: `${root}/agents/helper`, root, data: { name: 'helper' }, names: { name: 'helper' } });
 */
export async function renderTree(options: RenderTreeOptions): Promise<string[]> {
  const eta = new Eta({ views: options.from, autoEscape: false, autoTrim: false, cache: false, useWith: false });
  const written: string[] = [];
  const excluded = new Set(options.exclude ?? []);
  for (const file of await listFiles(options.from)) {
    if (excluded.has(file)) continue;
    const rendered = file.endsWith('.eta');
    const target = join(options.to, ...renameSegments(rendered ? file.slice(0, -4) : file, options.names ?? {}).split('/'));
    await mkdir(dirname(target), { recursive: true });
    if (rendered) {
      await writeFile(target, eta.render(`./${file}`, { ...options.data, h: TEMPLATE_HELPERS }));
    } else {
      await copyFile(join(options.from, ...file.split('/')), target);
    }
    written.push(relative(options.root, target).split(sep).join('/'));
  }
  return written.sort();
}

/** Every file under `dir`, relative and `/`-separated. */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => posix.join(relative(dir, entry.parentPath).split(sep).join('/'), entry.name))
    .sort();
}

function renameSegments(path: string, names: Readonly<Record<string, string>>): string {
  return path.replace(/__([a-z]+)__/g, (whole, key: string) => names[key] ?? whole);
}
