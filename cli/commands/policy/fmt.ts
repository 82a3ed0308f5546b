import { Args, Flags } from '@oclif/core';
import { PolicyCommand } from '../../policy-command.js';
import type { PolicyError } from '../../../runtime/policy/errors.js';
import { formatFiles } from '../../../runtime/policy/format/format-files.js';

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
    'Format Rego files the way `opa fmt` does (Rego v1): print the result, list files that would change (--check), rewrite them (--write) or show a diff (--diff).';

  static override examples = [
    '<%= config.bin %> policy fmt policies/authz.rego',
    '<%= config.bin %> policy fmt --check policies',
    '<%= config.bin %> policy fmt --write policies templates',
    '<%= config.bin %> policy fmt --diff policies --json',
  ];

  static override strict = false;

  static override args = {
    paths: Args.string({ description: '.rego files or directories (searched recursively)', required: true }),
  };

  static override flags = {
    check: Flags.boolean({ description: 'list the files whose formatting differs; exit 1 if any', exclusive: ['write', 'diff'] }),
    write: Flags.boolean({ char: 'w', description: 'rewrite the files whose formatting differs', exclusive: ['check', 'diff'] }),
    diff: Flags.boolean({ char: 'd', description: 'print a unified diff of each file against its formatted text', exclusive: ['check', 'write'] }),
  };

  async run(): Promise<{ ok: boolean; changed: string[]; files: FmtFile[] }> {
    const { argv, flags } = await this.parse(PolicyFmt);
    const paths = argv as string[];
    let result;
    try {
      result = await formatFiles({ paths, write: flags.write });
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (code === 'ENOENT' || code === 'EACCES')
        this.error(`cannot read ${(e as { path?: string }).path ?? paths.join(' ')}`, { exit: 2, code: 'invalid_arguments' });
      throw e;
    }
    if (result.errors.length > 0) {
      // As `opa fmt`: a file that does not parse is exit code 2, and nothing is written.
      const lines = result.errors.map(position);
      if (this.jsonEnabled()) this.error(lines.join('\n'), { exit: 2, code: 'rego_parse_error' });
      for (const line of lines) this.logToStderr(line);
      this.exit(2);
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
}
