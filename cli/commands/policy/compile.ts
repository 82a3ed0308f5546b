import { PolicyCommand } from '../../policy-command.js';
import { policyPathsFlag } from '../../policy-paths.js';
import { Args, Flags } from '@oclif/core';
import { stringifyJson } from '../../../runtime/core/json-text.js';
import { PolicyError } from '../../../runtime/policy/errors.js';
import type { Filter, FilterTarget } from '../../../runtime/policy/filters/compile-filters.js';
import { PolicyLoadError } from '../../../runtime/policy/server/policy-problem.js';
import { escapeJsonText } from '../../../runtime/core/terminal-text.js';

const TARGETS = ['postgresql', 'mysql', 'sqlserver', 'sqlite', 'ucast-all', 'ucast-minimal', 'ucast-prisma', 'ucast-linq'];

function targetOf(name: string): FilterTarget {
  return name.startsWith('ucast-') ? { target: 'ucast', dialect: name.slice('ucast-'.length) } : { target: 'sql', dialect: name };
}

export default class PolicyCompile extends PolicyCommand {
  static override description =
    "Turn a filter rule into a SQL WHERE clause or UCAST conditions (data filtering, as OPA's /v1/compile/{path}): the columns named by --unknowns stay open, everything else is evaluated with --input.";

  static override examples = [
    '<%= config.bin %> policy compile -d policies -i input.json --unknowns input.fruits data.filters.include',
    '<%= config.bin %> policy compile -d policies --target ucast-prisma --json data.filters.include',
  ];

  static override args = {
    rule: Args.string({ description: 'the filter rule, e.g. data.filters.include', required: true, ignoreStdin: true }),
  };

  static override flags = {
    data: policyPathsFlag(),
    input: Flags.file({ char: 'i', description: 'input document (JSON or YAML file)', exists: true }),
    unknowns: Flags.string({
      char: 'u',
      description: "a ref left unknown, e.g. input.fruits (repeatable; default: the rule's METADATA custom.unknowns, else input)",
      multiple: true,
      multipleNonGreedy: true,
    }),
    target: Flags.string({ char: 't', description: 'what to translate into', options: TARGETS, default: 'postgresql' }),
    'mask-rule': Flags.string({ description: 'rule giving column masks, e.g. data.filters.masks (default: METADATA custom.mask_rule)' }),
  };

  async run(): Promise<Filter> {
    const { args, flags } = await this.parse(PolicyCompile);
    const [{ FilterCompiler, FilterErrors }, { PartialError }, { exactNumbers }, { loadPolicySet, readInputFile }, { fromJS }] = await Promise.all([
      import('../../../runtime/policy/filters/compile-filters.js'),
      import('../../../runtime/policy/partial/partial-eval.js'),
      import('../../../runtime/policy/server/compile-routes.js'),
      import('../../../runtime/policy/tools/load-policies.js'),
      import('../../../runtime/policy/value-json.js'),
    ]);
    let filter: Filter | undefined;
    try {
      const set = await loadPolicySet(flags.data ?? []);
      const input = flags.input === undefined ? undefined : await readInputFile(flags.input);
      const compiler = new FilterCompiler(
        set.modules.map((m) => ({ file: m.id, source: m.source })),
        set.policy,
        set.data,
      );
      [filter] = compiler.compile({
        query: args.rule,
        ...(input === undefined ? {} : { input: fromJS(input) }),
        ...(flags.unknowns === undefined ? {} : { unknowns: flags.unknowns }),
        targets: [targetOf(flags.target)],
        ...(flags['mask-rule'] === undefined ? {} : { maskRule: flags['mask-rule'] }),
      });
    } catch (error) {
      if (PolicyLoadError.isInstance(error)) this.failToCompile(error, 'nothing was compiled: fix the errors above.');
      if (error instanceof FilterErrors)
        this.error(
          `${error.message}\nthe rule cannot become a filter for ${flags.target}: rewrite those expressions as comparisons of input.<table>.<column> with known values.`,
          { exit: 1, code: 'pe_fragment_error' },
        );
      if (error instanceof PartialError) this.error(error.message, { exit: 1, code: error.code });
      if (PolicyError.isInstance(error)) this.error(error.message, { exit: 1, code: error.code });
      throw error;
    }
    const out = exactNumbers(filter ?? { query: null }) as Filter;
    if (!this.jsonEnabled()) {
      if (out.query === null) this.log('(no row passes: the rule is never true for this input)');
      else if (out.query === '') this.log('(every row passes: the rule is always true for this input)');
      else this.log(escapeJsonText(typeof out.query === 'string' ? out.query : stringifyJson(out.query, 2)));
      if (out.masks !== undefined) this.log(`masks: ${escapeJsonText(stringifyJson(out.masks, 2))}`);
    }
    return out;
  }
}
