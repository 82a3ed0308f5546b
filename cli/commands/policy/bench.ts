import { Args, Flags } from '@oclif/core';
import { PolicyError } from '../../../runtime/policy/errors.js';
import { PolicyLoadError } from '../../../runtime/policy/server/policy-problem.js';
import type { BenchReport } from '../../../runtime/policy/tools/bench-query.js';
import { PolicyCommand } from '../../policy-command.js';
import { policyPathsFlag } from '../../policy-paths.js';

export default class PolicyBench extends PolicyCommand {
  static override description =
    'Benchmark a Rego query against a policy directory, like `opa bench`: the query is compiled once and evaluated repeatedly; prints ns/op and latency percentiles.';

  static override examples = [
    '<%= config.bin %> policy bench -d policies -i input.json "data.a2a_access.allow"',
    '<%= config.bin %> policy bench -d policies --count 5000 "data.trading.max_amount" --json',
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
    input: Flags.file({ char: 'i', description: 'input document (JSON or YAML file)', exists: true }),
    count: Flags.integer({ description: 'evaluations to time (default: as many as fit in --benchtime)', min: 1 }),
    benchtime: Flags.integer({ description: 'milliseconds to run when --count is not given', default: 1000, min: 1 }),
  };

  async run(): Promise<BenchReport> {
    const { args, flags } = await this.parse(PolicyBench);
    const [{ benchQuery }, { loadPolicySet, readInputFile }] = await Promise.all([
      import('../../../runtime/policy/tools/bench-query.js'),
      import('../../../runtime/policy/tools/load-policies.js'),
    ]);
    let report: BenchReport;
    try {
      const set = await loadPolicySet(flags.data ?? [], { v0Compatible: flags['v0-compatible'] });
      const input = flags.input === undefined ? undefined : await readInputFile(flags.input);
      report = benchQuery(set.policy, args.query, {
        ...(input === undefined ? {} : { input }),
        ...(flags.count === undefined ? { timeMs: flags.benchtime } : { count: flags.count }),
      });
    } catch (error) {
      if (PolicyLoadError.isInstance(error)) this.failToCompile(error, 'nothing was measured: fix the errors above.');
      if (PolicyError.isInstance(error)) this.error(error.message, { exit: 1, code: error.code });
      throw error;
    }
    if (!this.jsonEnabled()) {
      const rows: Array<[string, string]> = [
        ['samples', String(report.samples)],
        ['ns/op', String(report.ns_per_op)],
        ['B/op', String(report.bytes_per_op)],
        ['histogram_timer_rego_query_eval_ns_p50', String(report.p50_ns)],
        ['histogram_timer_rego_query_eval_ns_p90', String(report.p90_ns)],
        ['histogram_timer_rego_query_eval_ns_p99', String(report.p99_ns)],
        ['histogram_timer_rego_query_eval_ns_max', String(report.max_ns)],
      ];
      const w0 = Math.max(...rows.map(([k]) => k.length));
      const w1 = Math.max(...rows.map(([, v]) => v.length));
      const rule = `+-${'-'.repeat(w0)}-+-${'-'.repeat(w1)}-+`;
      this.log(rule);
      for (const [k, v] of rows) this.log(`| ${k.padEnd(w0)} | ${v.padStart(w1)} |`);
      this.log(rule);
    }
    return report;
  }
}
