import { describe, expect, it } from 'vitest';
import { plainError, runCli, type CliResult } from '../support/cli.js';

/**
 * Errors that no command's own `catch` answers (cli/main.ts): a hook's (the
 * prerun hook refuses an OTEL_* variable before a service starts), a command
 * that is not one of ours (`help`, `autocomplete`: no --json flag), the
 * parser's (a missing argument, a flag without its value), an unknown
 * command. Under --json (or FRAMEWORK_CLI_CONTENT_TYPE=json) each is the one
 * error document every command prints, on standard output, with the exit code
 * the error asks for; without it, oclif's text on standard error, as before.
 * These run the binary (cli/bin/run.js), as a user does.
 */

const BOGUS_EXPORTER = { OTEL_TRACES_EXPORTER: 'bogus' };
const EXPORTER_MESSAGE = 'OTEL_TRACES_EXPORTER="bogus" is not supported; use otlp (the default) or none.';

/** The whole of stdout as the error document, nothing on stderr. */
function errorDocument(result: CliResult): Record<string, unknown> {
  expect(result.stderr).toBe('');
  const doc = JSON.parse(result.stdout) as { error: Record<string, unknown> };
  expect(doc.error.exit).toBe(result.code);
  return doc;
}

describe('errors before a command runs, under --json', () => {
  // policy serve and serve guardian start lean (cli/serve-lean.ts), which hands a refused variable to oclif's prerun hook.
  it.each([
    ['policy', 'serve', 'policies', '--addr', '127.0.0.1:0'],
    ['serve', 'guardian', '--addr', '127.0.0.1:0'],
    ['model', 'serve', '--addr', '127.0.0.1:0'],
  ])('the prerun hook refusing OTEL_TRACES_EXPORTER is an error document, exit 1: %s %s', async (...args) => {
    const json = await runCli([...args, '--json'], { env: BOGUS_EXPORTER });
    expect(json.code).toBe(1);
    expect(errorDocument(json)).toEqual({ error: { code: 'invalid_config', message: EXPORTER_MESSAGE, exit: 1 } });
    const text = await runCli(args, { env: BOGUS_EXPORTER });
    expect(text.code).toBe(1);
    expect(text.stdout).toBe('');
    expect(plainError(text.stderr)).toBe(`Error: ${EXPORTER_MESSAGE} Code: invalid_config`);
  });

  it('FRAMEWORK_CLI_CONTENT_TYPE=json asks for the document as --json does: the prerun hook, an unknown command', async () => {
    const hook = await runCli(['policy', 'serve', 'policies', '--addr', '127.0.0.1:0'], { env: { ...BOGUS_EXPORTER, FRAMEWORK_CLI_CONTENT_TYPE: 'json' } });
    expect(hook.code).toBe(1);
    expect(errorDocument(hook)).toMatchObject({ error: { code: 'invalid_config', message: EXPORTER_MESSAGE } });
    const unknown = await runCli(['stauts'], { env: { FRAMEWORK_CLI_CONTENT_TYPE: 'json' } });
    expect(unknown.code).toBe(2);
    expect(errorDocument(unknown)).toMatchObject({ error: { code: 'command_not_found', suggestion: 'status' } });
  });

  it.each([['help'], ['help', 'policy'], ['autocomplete']])(
    'a plugin command without a --json flag answers --json with an error document: %s',
    async (...args) => {
      const json = await runCli([...args, '--json']);
      expect(json.code).toBe(2);
      expect(errorDocument(json)).toEqual({ error: { code: 'invalid_arguments', message: 'Nonexistent flag: --json', exit: 2 } });
      const text = await runCli([...args, '--json-not-a-flag']);
      expect(text.code).toBe(2);
      expect(text.stdout).toBe('');
      expect(plainError(text.stderr)).toMatch(/^Error: Nonexistent flag: --json-not-a-flag See more help with --help/);
    },
  );

  it('a missing argument and a flag without its value are error documents, exit 2', async () => {
    const missing = await runCli(['policy', 'eval', '-d', 'policies', '--json']);
    expect(missing.code).toBe(2);
    expect(errorDocument(missing)).toMatchObject({ error: { code: 'invalid_arguments', message: expect.stringMatching(/^Missing 1 required arg:\nquery /) } });
    const noValue = await runCli(['status', '--json', '--dir']);
    expect(noValue.code).toBe(2);
    expect(errorDocument(noValue)).toEqual({ error: { code: 'invalid_arguments', message: 'Flag --dir expects a value', exit: 2 } });
  });

  it('a topic typed alone is an error document naming its commands, exit 2 (its help text without --json)', async () => {
    const json = await runCli(['a2a', 'card', '--json']);
    expect(json.code).toBe(2);
    expect(errorDocument(json)).toEqual({
      error: { code: 'invalid_arguments', message: '"a2a card" is a topic, not a command: name one of a2a card sign, a2a card verify', exit: 2 },
    });
    const env = await runCli(['policy'], { env: { FRAMEWORK_CLI_CONTENT_TYPE: 'json' } });
    expect(env.code).toBe(2);
    expect(errorDocument(env)).toMatchObject({ error: { message: expect.stringMatching(/^"policy" is a topic, not a command: name one of policy bench, /) } });
    const text = await runCli(['policy']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Check, test, evaluate and serve Rego policies/);
  });

  it('--json after -- is an argument, not a request for JSON', async () => {
    const result = await runCli(['no-such-command', '--', '--json']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(plainError(result.stderr)).toMatch(/no-such-command is not a framework-cli command/);
  });

  it('an unknown command typed with terminal controls is written escaped', async () => {
    const result = await runCli(['\u009b31mred', '--json']);
    expect(result.code).toBe(2);
    expect(result.stdout).not.toContain('\u009b');
    expect(result.stdout).toContain('\\u009b31mred is not a framework-cli command');
    expect(errorDocument(result)).toMatchObject({ error: { code: 'command_not_found', message: expect.stringContaining('\u009b31mred') } });
  });
});
