import { PolicyCommand } from '../../policy-command.js';
import { policyPathsFlag } from '../../policy-paths.js';
import { Args, Flags } from '@oclif/core';
import { stringifyJson } from '../../../runtime/core/json-text.js';
import { PolicyError } from '../../../runtime/policy/errors.js';
import { PolicyLoadError } from '../../../runtime/policy/server/policy-problem.js';
import { EXPLAIN_MODES } from '../../../runtime/policy/trace/lineage.js';
import type { EvalOutput } from '../../../runtime/policy/tools/eval-query.js';
import { remoteText } from '../../remote-text.js';
import { escapeJsonText } from '../../../runtime/core/terminal-text.js';

export default class PolicyEval extends PolicyCommand {
  static override description = 'Evaluate a Rego query against a policy directory and print the result as JSON (the shape of `opa eval`).';

  static override examples = [
    '<%= config.bin %> policy eval -d policies -i input.json "data.a2a_access.allow"',
    '<%= config.bin %> policy eval -d policies "x := data.trading.max_amount"',
    '<%= config.bin %> policy eval -d policies -i input.json --explain=fails "data.a2a_access.allow"',
  ];

  static override args = {
    query: Args.string({ description: 'Rego query, e.g. data.a2a_access.allow', required: true, ignoreStdin: true }),
  };

  static override flags = {
    'v0-compatible': Flags.boolean({
      description:
        "read the policies as Rego v0 (OPA's --v0-compatible: rule bodies without `if`, `p[x] { ... }` partial sets, future keywords only when imported)",
      default: false,
    }),
    data: policyPathsFlag(),
    schema: Flags.string({
      char: 's',
      description:
        "JSON schema of the input (a file), or a directory of schemas that `# METADATA` `schemas:` annotations name as schema.<path> (OPA's --schema); annotations are applied when a module calls rego.metadata.rule() or chain(), as OPA's rego package applies them (`policy check` always applies them)",
    }),
    input: Flags.file({ char: 'i', description: 'input document (JSON or YAML file)', exists: true }),
    'strict-builtin-errors': Flags.boolean({
      description: 'stop at a builtin\'s error (e.g. to_number("abc")) instead of treating the call as undefined, as opa eval --strict-builtin-errors',
      default: false,
    }),
    explain: Flags.string({
      description:
        'explain the evaluation as `opa eval --explain` does: notes (trace() notes), fails (failed expressions), full or debug (every event); ' +
        'printed as text before the result, or as `explanation` events with --json',
      options: ['off', ...EXPLAIN_MODES],
      default: 'off',
    }),
  };

  async run(): Promise<EvalOutput> {
    const { args, flags } = await this.parse(PolicyEval);
    const { evalQuery, evalQueryExplained, loadPolicySet, readInputFile } = await import('../../policy-engine.js');
    let output: EvalOutput;
    let lines: string[] | undefined;
    try {
      const set = await loadPolicySet(flags.data ?? [], {
        v0Compatible: flags['v0-compatible'],
        ...(flags.schema === undefined ? {} : { schema: flags.schema }),
      });
      const input = flags.input === undefined ? undefined : await readInputFile(flags.input);
      const explain = EXPLAIN_MODES.find((m) => m === flags.explain);
      const options = { ...(input === undefined ? {} : { input }), strictBuiltinErrors: flags['strict-builtin-errors'] };
      if (explain === undefined) output = evalQuery(set.policy, args.query, options);
      else ({ output, lines } = evalQueryExplained(set.policy, args.query, { ...options, explain }));
    } catch (error) {
      if (PolicyLoadError.isInstance(error)) {
        this.failToCompile(error, 'nothing was evaluated: fix the errors above.');
      }
      if (PolicyError.isInstance(error)) this.error(error.message, { exit: 1, code: error.code });
      throw error;
    }
    if (!this.jsonEnabled()) {
      if (lines !== undefined) {
        for (const line of lines) this.log(remoteText(line, { singleLine: true }));
        const { explanation: _events, ...rest } = output;
        output = rest;
      }
      this.log(escapeJsonText(stringifyJson(output, 2)));
    }
    return output;
  }
}
