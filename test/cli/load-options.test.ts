import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadOptions, ownCommandId } from '../../cli/load-options.js';
import { REPO_ROOT } from '../support/processes.js';

/**
 * The binary gives oclif no plugins to look up when the words typed name one
 * of our commands, so that id must be the one oclif itself finds (words as
 * topics until a flag, a stray word joining the id of a command that takes
 * none), and everything that shows other plugins' commands keeps them.
 */
const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')) as Parameters<typeof ownCommandId>[0]['manifest'];
const binUrl = pathToFileURL(join(REPO_ROOT, 'cli/bin/run.js')).href;
const plugins = (args: string[]) => {
  const options = loadOptions({ binUrl, args });
  return typeof options === 'object' && options !== null && 'pjson' in options ? options.pjson?.oclif.plugins : 'none given';
};

describe('the start load options', () => {
  it('finds our command id as oclif does', () => {
    expect(ownCommandId({ args: ['status', '--json'], manifest })).toBe('status');
    expect(ownCommandId({ args: ['policy', 'eval', 'data.x', '-d', 'p'], manifest })).toBe('policy:eval');
    expect(ownCommandId({ args: ['model', 'rm', 'a', 'b'], manifest })).toBe('model:rm');
    expect(ownCommandId({ args: ['serve', 'agent', '--port', '1'], manifest })).toBe('serve:agent');
    // A stray word after a command without arguments is part of the id for oclif: no command of ours.
    expect(ownCommandId({ args: ['status', 'extra'], manifest })).toBeUndefined();
    expect(ownCommandId({ args: ['policy'], manifest })).toBeUndefined();
    expect(ownCommandId({ args: ['policy', 'nothing'], manifest })).toBeUndefined();
    expect(ownCommandId({ args: ['--help'], manifest })).toBeUndefined();
    expect(ownCommandId({ args: [], manifest })).toBeUndefined();
    expect(ownCommandId({ args: ['autocomplete'], manifest })).toBeUndefined();
  });

  it('drops the plugins only for a command of ours other than help and version', () => {
    const all = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { oclif: { plugins: string[] } }).oclif.plugins;
    expect(all.length).toBeGreaterThan(0);
    expect(plugins(['status', '--json'])).toEqual([]);
    expect(plugins(['policy', 'eval', '--help'])).toEqual([]);
    for (const args of [
      [],
      ['--help'],
      ['help'],
      ['help', 'policy'],
      ['version', '--verbose'],
      ['--version'],
      ['autocomplete'],
      ['stauts'],
      ['status', 'extra'],
    ])
      expect(plugins(args), args.join(' ')).toEqual(all);
  });
});
