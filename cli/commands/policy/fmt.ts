import { Args, Flags } from '@oclif/core';
import { PolicyCommand } from '../../policy-command.js';
import { PolicyError } from '../../../runtime/policy/errors.js';
import type { FormatFilesResult } from '../../../runtime/policy/format/format-files.js';

/** The name standard input goes by in positions, lists and diffs. */
const STDIN = '<stdin>';

interface FmtFile {
  file: string;
  changed: boolean;
  formatted?: string;
  diff?: string;
}

function position(e: PolicyError): string {
  const loc = e.location;
  return loc === undefined ? `${e.code}: ${e.detail}` : `${loc.file}:${loc.row}:${loc.col}: ${e.code}: ${e.detail}`;
}

export default class PolicyFmt extends PolicyCommand {
  static override description =
    'Format Rego files the way `opa fmt` does (Rego v1): print the result, list files that would change (--check), rewrite them (--write) or show a diff (--diff). With no path (or `-`), formats the Rego piped on standard input.';

  static override examples = [
    '<%= config.bin %> policy fmt policies/authz.rego',
    '<%= config.bin %> policy fmt --check policies',
    '<%= config.bin %> policy fmt --write policies templates',
    '<%= config.bin %> policy fmt --diff policies --json',
    'cat authz.rego | <%= config.bin %> policy fmt',
  ];

  static override strict = false;

  static override args = {
    paths: Args.string({
      description: '.rego files or directories (searched recursively); none or `-` reads standard input',
      required: false,
      ignoreStdin: true,
    }),
  };

  static override flags = {
    check: Flags.boolean({ description: 'list the files whose formatting differs; exit 1 if any', exclusive: ['write', 'diff'] }),
    write: Flags.boolean({ char: 'w', description: 'rewrite the files whose formatting differs', exclusive: ['check', 'diff'] }),
    diff: Flags.boolean({ char: 'd', description: 'print a unified diff of each file against its formatted text', exclusive: ['check', 'write'] }),
    'v0-v1': Flags.boolean({
      description: 'read the files as Rego v0 and rewrite them in v1 syntax with `import rego.v1` (valid under both), as `opa fmt --v0-v1` does',
      default: false,
    }),
  };

  async run(): Promise<{ ok: boolean; changed: string[]; files: FmtFile[] }> {
    const { argv, flags } = await this.parse(PolicyFmt);
    const paths = argv as string[];
    let result: FormatFilesResult;
    try {
      result =
        paths.length === 0 || (paths.length === 1 && paths[0] === '-')
          ? await this.formatStdin(flags.write, flags['v0-v1'])
          : await (await import('../../../runtime/policy/format/format-files.js')).formatFiles({ paths, write: flags.write, v0ToV1: flags['v0-v1'] });
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (code === 'ENOENT' || code === 'EACCES')
        this.error(`cannot read ${(e as { path?: string }).path ?? paths.join(' ')}`, { exit: 2, code: 'invalid_arguments' });
      throw e;
    }
    if (result.errors.length > 0) {
      // A file that does not parse is exit code 1, as from `policy check` (2 is for bad arguments only), and nothing is written.
      const lines = result.errors.map(position);
      if (this.jsonEnabled()) this.error(lines.join('\n'), { exit: 1, code: 'rego_parse_error' });
      for (const line of lines) this.logToStderr(line);
      this.exit(1);
    }
    const changed = result.files.filter((f) => f.changed).map((f) => f.file);
    const mode = flags.check ? 'check' : flags.write ? 'write' : flags.diff ? 'diff' : 'print';
    const files: FmtFile[] = result.files.map((f) => {
      if (mode === 'print') return { file: f.file, changed: f.changed, formatted: f.formatted };
      if (mode === 'diff') return { file: f.file, changed: f.changed, diff: f.diff };
      return { file: f.file, changed: f.changed };
    });
    if (!this.jsonEnabled()) {
      if (mode === 'print') for (const f of result.files) process.stdout.write(f.formatted);
      else if (mode === 'diff') for (const f of result.files) process.stdout.write(f.diff);
      else for (const file of changed) this.log(file);
    }
    // Not this.exit(1): under --json that would print a second JSON document.
    if (mode === 'check' && changed.length > 0) process.exitCode = 1;
    return { ok: mode !== 'check' || changed.length === 0, changed, files };
  }

  /** Standard input as one unnamed file: `--write` has nothing to rewrite, and a terminal (nothing piped) is refused rather than waited on. */
  private async formatStdin(write: boolean, v0ToV1: boolean): Promise<FormatFilesResult> {
    if (write)
      this.error('--write needs files to rewrite; standard input can only be printed, checked (--check) or diffed (--diff)', {
        exit: 2,
        code: 'invalid_arguments',
      });
    if (process.stdin.isTTY)
      this.error('no Rego to format: name .rego files or directories, or pipe Rego on standard input (cat authz.rego | framework-cli policy fmt)', {
        exit: 2,
        code: 'invalid_arguments',
      });
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const { formatSource } = await import('../../../runtime/policy/format/format-files.js');
    const formatted = formatSource({ source: Buffer.concat(chunks).toString('utf8'), file: STDIN, v0ToV1 });
    return PolicyError.isInstance(formatted) ? { files: [], errors: [formatted] } : { files: [formatted], errors: [] };
  }
}
