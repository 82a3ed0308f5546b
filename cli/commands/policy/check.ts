import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { PolicyCommand } from '../../policy-command.js';
import { policyPathArg } from '../../policy-paths.js';
import { Flags } from '@oclif/core';
import { formatProblem, PolicyLoadError, type PolicyProblem } from '../../../runtime/policy/server/policy-problem.js';

export default class PolicyCheck extends PolicyCommand {
  static override description =
    'Parse and compile every .rego file (and data.json/data.yaml) in a directory, or one .rego file; report errors as file:line:col.';

  static override examples = [
    '<%= config.bin %> policy check policies',
    '<%= config.bin %> policy check services/guardian/opa/policies --json',
    '<%= config.bin %> policy check policies --schema schemas',
  ];

  static override args = {
    dir: policyPathArg({ description: 'policy directory, or one .rego file', required: true }),
  };

  static override flags = {
    schema: Flags.string({
      char: 's',
      description:
        "JSON schema of the input (a file), or a directory of schemas that `# METADATA` `schemas:` annotations name as schema.<path> (OPA's --schema); rule bodies are type-checked against their annotations, as `opa check` does",
    }),
    'v0-compatible': Flags.boolean({
      description:
        "read the policies as Rego v0 (OPA's --v0-compatible: rule bodies without `if`, `p[x] { ... }` partial sets, future keywords only when imported)",
      default: false,
    }),
  };

  async run(): Promise<{ ok: boolean; modules: string[]; errors: PolicyProblem[] }> {
    const { args, flags } = await this.parse(PolicyCheck);
    try {
      const { loadPolicySet } = await import('../../policy-engine.js');
      const set = await loadPolicySet([args.dir], {
        v0Compatible: flags['v0-compatible'],
        typeCheckAnnotations: true,
        ...(flags.schema === undefined ? {} : { schema: flags.schema }),
      });
      const modules = set.modules.map((m) => m.id);
      if (!this.jsonEnabled()) this.log(`${modules.length} module(s) compiled without errors.`);
      return { ok: true, modules, errors: [] };
    } catch (error) {
      if (!PolicyLoadError.isInstance(error)) throw error;
      // Problems name files relative to the directory read (a file's directory, when one file was given).
      const base = statSync(args.dir, { throwIfNoEntry: false })?.isFile() === true ? dirname(args.dir) : args.dir.replace(/\/$/, '');
      const problems = error.problems.map((p) => (p.file === undefined ? p : { ...p, file: `${base}/${p.file}` }));
      if (!this.jsonEnabled()) {
        for (const problem of problems) this.logToStderr(formatProblem(problem));
        this.logToStderr(`${problems.length} error(s).`);
      }
      // Not this.exit(1): under --json that would print a second JSON document.
      process.exitCode = 1;
      return { ok: false, modules: [], errors: problems };
    }
  }
}
