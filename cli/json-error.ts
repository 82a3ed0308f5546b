import { FrameworkError } from '../runtime/core/framework-error.js';

/** The one JSON document a failed command prints under `--json`. */
export interface JsonErrorDocument {
  error: { code: string; message: string; exit: number; [field: string]: unknown };
}

/**
 * Whether the words typed ask for JSON, read as oclif's `jsonEnabled` reads
 * them: `--json` before any `--`, or FRAMEWORK_CLI_CONTENT_TYPE=json. For
 * what fails before a command's own `catch` could answer (a hook, an unknown
 * command, a plugin's command), which has no command instance to ask.
 *
 * @example
 * jsonRequested({ argv: ['policy', 'eval', '--json'], env: {} }); // true
 * jsonRequested({ argv: ['policy', 'eval', '--', '--json'], env: {} }); // false
 */
export function jsonRequested(options: { argv: readonly string[]; env: NodeJS.ProcessEnv }): boolean {
  if (options.env.FRAMEWORK_CLI_CONTENT_TYPE?.toLowerCase() === 'json') return true;
  const json = options.argv.indexOf('--json');
  const passThrough = options.argv.indexOf('--');
  return json !== -1 && (passThrough === -1 || json < passThrough);
}

/**
 * The error document of `err`: its code (`this.error(..., { code })`, a
 * FrameworkError's; `invalid_arguments` for a parse error), its message and
 * the exit code it asks for (2 for bad arguments). A FrameworkError's own
 * fields (a SupervisorError's `service`, `lastLines`) stay; oclif's internals
 * (the parser's context, the configuration) do not.
 *
 * @example
 * jsonErrorDocument(new FrameworkError('invalid_config', 'OTEL_TRACES_EXPORTER="x" is not supported'));
 * // { error: { code: 'invalid_config', message: 'OTEL_TRACES_EXPORTER="x" is not supported', exit: 1 } }
 */
export function jsonErrorDocument(err: unknown): JsonErrorDocument {
  const own = FrameworkError.isInstance(err) ? { ...err } : {};
  return { error: { ...own, code: errorCode(err), message: errorMessage(err), exit: errorExitCode(err) } };
}

/** The exit code `err` asks for (oclif's `exit` option), 1 when it names none. */
export function errorExitCode(err: unknown): number {
  const exit = (err as { oclif?: { exit?: unknown } } | undefined)?.oclif?.exit;
  return typeof exit === 'number' ? exit : 1;
}

function errorCode(err: unknown): string {
  if (FrameworkError.isInstance(err)) return err.code;
  if (typeof err === 'object' && err !== null) {
    const { code, parse } = err as { code?: unknown; parse?: unknown };
    if (typeof code === 'string' && code !== '') return code;
    if (parse !== undefined) return 'invalid_arguments';
    if (errorExitCode(err) === 2) return 'invalid_arguments';
  }
  return 'command_failed';
}

function errorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // oclif appends a pointer to --help for the terminal; the JSON consumer has the message.
  return message.replace(/\nSee more help with --help$/, '');
}
