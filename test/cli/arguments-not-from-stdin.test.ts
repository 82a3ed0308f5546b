import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Config } from '@oclif/core';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { REPO_ROOT } from '../support/processes.js';

/**
 * oclif's parser takes a positional argument left off the command line from
 * standard input when that is not a terminal (and waits up to 10 ms for it to
 * close). Piped text then became the argument without a word of it on the
 * command line: `echo "hello there" | framework-cli chat` tried an agent named
 * "hello there", `echo <id> | framework-cli trace` showed that trace, and a
 * `policy serve` started with an open pipe on its standard input waited for
 * it. No command of ours reads an argument so: every argument says
 * `ignoreStdin` (`policy fmt` and `model run` read standard input as their own
 * documented input, not as a missing argument).
 */
describe('no argument is taken from standard input', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-stdin-args-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('every argument of every command of ours says ignoreStdin', async () => {
    const config = await Config.load(REPO_ROOT);
    // `help` included: oclif's plugin's command read its argument so; ours (cli/commands/help.ts) replaces it.
    const ours = config.commands.filter((command) => command.pluginName === 'framework_core');
    expect(ours.map((command) => command.id)).toContain('help');
    expect(ours.length).toBeGreaterThan(30);
    const reading: string[] = [];
    for (const command of ours) {
      const loaded = await command.load();
      for (const [name, arg] of Object.entries(loaded.args ?? {})) if (arg.ignoreStdin !== true) reading.push(`${command.id} ${name}`);
    }
    expect(reading).toEqual([]);
  });

  it('a piped trace id is not the trace asked for', async () => {
    const id = '0123456789abcdef0123456789abcdef';
    const result = await runCli(['trace', '--json', '--dir', dir], { input: `${id}\n`, cwd: dir });
    expect(result.code).not.toBe(0);
    const { error } = JSON.parse(result.stdout) as { error: { code: string; message: string } };
    expect(error.message).not.toContain(id);
  });

  it('piped text is not the command help is asked for', async () => {
    const result = await runCli(['help'], { input: 'no-such-command\n', cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('no-such-command');
    // The whole CLI's help, as with nothing piped.
    expect(result.stdout).toContain('COMMANDS');
    expect(result.stdout).toContain('policy');
  });

  it('a piped query is not the query of policy eval: its missing argument is a usage error', async () => {
    const result = await runCli(['policy', 'eval', '--json'], { input: 'data.x\n', cwd: dir });
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'invalid_arguments', message: expect.stringMatching(/Missing 1 required arg/) } });
  });
});
