import { describe, expect, it } from 'vitest';
import { plainError, runCli } from '../support/cli.js';

/**
 * Usage errors exit 2, as docs/cli.md says, and a --json run prints one JSON
 * document whatever happens: a stray argument (which oclif reads as part of a
 * command's name), an unknown command, flags with no command, and
 * `--version --json`. These run the binary (cli/bin/run.js), as a user does.
 */
describe('usage errors and --version --json', () => {
  it('a stray argument after a command that takes none is exit 2, naming the command and the word', async () => {
    const text = await runCli(['status', 'extra']);
    expect(text.code).toBe(2);
    expect(plainError(text.stderr)).toMatch(/framework-cli status takes no argument "extra"\. See framework-cli status --help\./);
    expect(text.stderr).not.toMatch(/not a framework-cli command|Did you mean/);
    const json = await runCli(['status', 'extra', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 'invalid_arguments', message: 'framework-cli status takes no argument "extra". See framework-cli status --help.', exit: 2 },
    });
  });

  it('an unknown command is exit 2 with the closest command as a suggestion', async () => {
    const json = await runCli(['stauts', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 'command_not_found', message: expect.stringContaining('Did you mean status?'), suggestion: 'status', exit: 2 },
    });
    const text = await runCli(['a2a', 'nothing-like-it']);
    expect(text.code).toBe(2);
    expect(text.stdout).toBe('');
    expect(plainError(text.stderr)).toMatch(/a2a nothing-like-it is not a framework-cli command\. Run framework-cli help for the list\./);
  });

  it('--version --json prints the version as JSON, in either order and with -v', async () => {
    for (const args of [
      ['--version', '--json'],
      ['--json', '--version'],
      ['-v', '--json'],
    ]) {
      const result = await runCli(args);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        architecture: expect.any(String),
        cliVersion: expect.stringMatching(/^framework_core\/\d/),
        nodeVersion: process.version.replace(/^/, 'node-'),
      });
    }
    const plain = await runCli(['--version']);
    expect(plain.stdout).toMatch(/^framework_core\/\S+ \S+ node-v\d/);
  });

  it('--json alone is a usage error as JSON', async () => {
    const result = await runCli(['--json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'invalid_arguments', message: expect.stringContaining('needs a command'), exit: 2 } });
  });
});
