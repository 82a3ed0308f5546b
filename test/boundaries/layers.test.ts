import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, ROOT, sourceFiles } from './source-imports.js';

/**
 * The layers of ARCHITECTURE.md, bottom first. A file may import its own
 * component, the same layer, or any layer below; never one above.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['runtime/core'],
  ['runtime/sessions', 'runtime/llm', 'runtime/policy'],
  ['runtime/http', 'runtime/a2a', 'runtime/semantic', 'runtime/memory', 'runtime/model', 'runtime/guardian', 'runtime/planning', 'runtime/tools'],
  ['runtime/agent', 'runtime/supervisor', 'runtime/telemetry', 'runtime/scaffold', 'runtime/deploy', 'runtime/doctor', 'runtime/examples', 'runtime/testing'],
  ['cli', 'repl'],
];

function componentOf(file: string): string | undefined {
  if (file === 'runtime/index.ts') return 'runtime/index.ts';
  return LAYERS.flat().find((c) => file === `${c}.ts` || file.startsWith(`${c}/`));
}

function layerOf(component: string): number {
  // The root entry point sits above the agent layer and below the CLI.
  if (component === 'runtime/index.ts') return 3.5;
  return LAYERS.findIndex((layer) => layer.includes(component));
}

const files = ['runtime', 'cli', 'repl'].flatMap(sourceFiles);
const relativeImports = files.flatMap(importsOf).filter((i) => i.relative);

describe('layers point down', () => {
  it('every source file belongs to a component of a layer', () => {
    expect(files.filter((f) => componentOf(f) === undefined)).toEqual([]);
  });

  it('no import points to a higher layer', () => {
    const upward = relativeImports
      .filter((i) => {
        const from = componentOf(i.from);
        const to = componentOf(i.to);
        return from !== undefined && to !== undefined && from !== to && layerOf(to) > layerOf(from);
      })
      .map((i) => `${i.from} -> ${i.to}`);
    expect(upward).toEqual([]);
  });

  it('the policy engine (everything in runtime/policy outside server/ and tools/) depends on nothing of ours', () => {
    const engine = relativeImports.filter(
      (i) => i.from.startsWith('runtime/policy/') && !/^runtime\/policy\/(server|tools)\//.test(i.from) && i.from !== 'runtime/policy/index.ts',
    );
    expect(engine.filter((i) => !i.to.startsWith('runtime/policy/')).map((i) => `${i.from} -> ${i.to}`)).toEqual([]);
  });

  it('core imports no other component, and nothing lazily', () => {
    const core = files.filter((f) => f.startsWith('runtime/core/'));
    const outside = core.flatMap(importsOf).filter((i) => i.relative && !i.to.startsWith('runtime/core/'));
    expect(outside.map((i) => `${i.from} -> ${i.to}`)).toEqual([]);
  });

  it('no source file imports an entry point (runtime/index.ts or runtime/<component>/index.ts), so the CLI loads only what it uses', () => {
    const entries = relativeImports.filter((i) => /^runtime\/([a-z0-9-]+\/)?index\.ts$/.test(i.to) && !/^runtime\/([a-z0-9-]+\/)?index\.ts$/.test(i.from));
    expect(entries.map((i) => `${i.from} -> ${i.to}`)).toEqual([]);
  });

  it('every relative import names a file that exists', () => {
    const missing = relativeImports.filter((i) => !existsSync(join(ROOT, i.to)) && !existsSync(join(ROOT, i.to.replace(/\.ts$/, '.tsx'))));
    expect(missing.map((i) => `${i.from} -> ${i.to}`)).toEqual([]);
  });
});
