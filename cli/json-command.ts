import { Command, ux, type Interfaces } from '@oclif/core';
import { terminalJson } from '../runtime/core/terminal-text.js';
import { errorExitCode, jsonErrorDocument, type JsonErrorDocument } from './json-error.js';
import { remoteText } from './remote-text.js';

/**
 * Base of every command: `--json` on, and an error under `--json` is one
 * small document `{ "error": { "code", "message", "exit" } }` instead of
 * oclif's default (which dumps the parser's whole context, configuration
 * included), with the exit code the error asks for (2 for bad arguments).
 */
export abstract class JsonCommand extends Command {
  static override enableJsonFlag = true;

  /**
   * True for commands that stream JSON lines (`serve`: `{"event":"listening"}`
   * first): their final document is printed on one line too, so the whole of
   * standard output is NDJSON.
   */
  static jsonLines = false;

  /** Whether this command's --json output is JSON lines (see {@link JsonCommand.jsonLines}). */
  protected get jsonLines(): boolean {
    return (this.constructor as typeof JsonCommand).jsonLines;
  }

  /**
   * The command's JSON document, with every character a terminal would
   * interpret or hide (C1 controls, bidi controls, U+2028/U+2029, format
   * characters) written as `\uXXXX`, as JSON.stringify already does for C0:
   * remote text in the document cannot drive the terminal that shows it.
   */
  override logJson(json: unknown): void {
    if (this.jsonLines) ux.stdout(terminalJson(json));
    // Already laid out: colorizeJson with `pretty` would parse the text again and undo the escapes.
    else ux.stdout(ux.colorizeJson(terminalJson(json, 2), { pretty: false, theme: this.config.theme?.json }));
  }

  /** Under --json, exit with the error's own code (2 for bad arguments), as without it. */
  protected override async catch(err: Interfaces.CommandError): Promise<unknown> {
    // A flag value oclif could not parse (`-d` naming no directory) is a bad argument: exit 2, like the parser's own errors.
    if (/^Parsing --/.test(err.message)) Object.assign(err, { oclif: { ...(err as { oclif?: object }).oclif, exit: 2 } });
    if (this.jsonEnabled() && process.exitCode === undefined) process.exitCode = errorExitCode(err);
    // An error's message can carry remote text (an agent's error, a service's last log lines): shown, never interpreted.
    if (!this.jsonEnabled() && typeof err.message === 'string') err.message = remoteText(err.message, { stream: process.stderr });
    return super.catch(err);
  }

  protected override toErrorJson(err: unknown): JsonErrorDocument {
    return jsonErrorDocument(err);
  }
}
