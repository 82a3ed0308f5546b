import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Config, Help } from '@oclif/core';
import { captureOutput } from '@oclif/test';
import { beforeAll, describe, expect, it } from 'vitest';
import { compareCommandIds, renderHelpText } from '../../cli/oclif-start.js';
import { runCli } from '../support/cli.js';
import { REPO_ROOT } from '../support/processes.js';

/**
 * cli/oclif-start.ts replaces two steps of oclif's start in the CLI's bundle
 * of oclif (scripts/bundle-cli.mjs): the sort of the commands by id without
 * ICU's collator, and help text without a `%` not run through EJS. They must
 * answer exactly as oclif's own code, which these tests run beside them: the
 * same order as `localeCompare`, the same text as oclif's template, the same
 * help printed by the binary as by oclif's unbundled `Help`.
 */
describe("oclif's start steps done without ICU's collator and EJS", () => {
  let config: Config;
  beforeAll(async () => {
    config = await Config.load(REPO_ROOT);
  });

  it('orders command ids as localeCompare does: every pair of ours, and random ids of every kind', () => {
    const sign = (n: number) => Math.sign(n);
    const ids = config.commands.map((command) => command.id);
    expect(ids.length).toBeGreaterThan(30);
    for (const a of ids) for (const b of ids) expect([a, b, sign(compareCommandIds(a, b))]).toEqual([a, b, sign(a.localeCompare(b))]);
    // The id characters, and others the collator orders differently from code units (capitals, accents, spaces, symbols).
    const alphabet = '_-:.0123456789abcdefghijklmnopqrstuvwxyzAZé /$~';
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
    const word = (pure: boolean) =>
      Array.from({ length: Math.floor(random() * 7) }, () => alphabet[Math.floor(random() * (pure ? 40 : alphabet.length))]).join('');
    const mismatches: string[] = [];
    for (let i = 0; i < 40_000; i++) {
      const [a, b] = [word(i % 2 === 0), word(i % 3 === 0)];
      if (sign(compareCommandIds(a, b)) !== sign(a.localeCompare(b))) mismatches.push(`${JSON.stringify(a)} ${JSON.stringify(b)}`);
    }
    expect(mismatches).toEqual([]);
    expect([...ids].sort(compareCommandIds)).toEqual([...ids].sort((a, b) => a.localeCompare(b)));
  });

  it("renders help text as oclif's template: every text of every command, and texts with EJS's marks", () => {
    const render = (new Help(config) as unknown as { render(text: string): string }).render;
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, unknown> };
    const texts = new Set<string>();
    const collect = (value: unknown): void => {
      if (typeof value === 'string') texts.add(value);
      else if (Array.isArray(value)) value.forEach(collect);
      else if (value && typeof value === 'object') Object.values(value).forEach(collect);
    };
    collect(manifest.commands);
    for (const text of ['<%= config.bin %> chat', '100% sure', '-%> after', 'a %%> b', '<%% literal', 'x _%> y', 'a\r\nb\n', '\\ " \' `${x}`', 'é ✓ \u001b[1m'])
      texts.add(text);
    expect(texts.size).toBeGreaterThan(500);
    for (const text of texts) expect([text, renderHelpText(text, render)]).toEqual([text, render(text)]);
  });

  it("prints the binary's help (the commands' list, a command's flags) as oclif's own Help does", async () => {
    const helpOf = async (argv: string[]) => {
      const output = await captureOutput(async () => new Help(config, config.pjson.oclif.helpOptions).showHelp(argv), { print: false });
      return output.stdout;
    };
    for (const words of [[], ['policy', 'serve'], ['chat'], ['up'], ['model', 'serve'], ['policy', 'eval']]) {
      const binary = await runCli([...words, '--help'], { env: { NO_COLOR: '1' } });
      expect(binary.code).toBe(0);
      expect(binary.stdout).toBe(await helpOf(words.length > 0 ? [words.join(':')] : []));
    }
  });
});
